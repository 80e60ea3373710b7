import { spawn } from 'node:child_process';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';

const MAX_OUTPUT = 20_000;

/** Runs a shell command in the workspace. Every call goes through the shell rules (F25). */
export const bashTool = defineTool({
  name: 'bash',
  description: 'Run a bash command in the workspace directory and return its exit code and output.',
  parameters: z.object({
    command: z.string().min(1),
    timeoutMs: z.number().int().positive().max(600_000).default(60_000),
  }),
  category: 'command',
  riskLevel: 'HIGH',
  tags: ['shell'],
  shellCommand: ({ command }) => command,
  execute({ command, timeoutMs }, context) {
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', command], { cwd: context.workspaceRoot, signal: context.signal, timeout: timeoutMs });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-MAX_OUTPUT)));
      child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-MAX_OUTPUT)));
      child.on('error', reject);
      child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
    });
  },
});
