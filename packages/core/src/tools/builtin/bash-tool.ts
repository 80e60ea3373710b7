import { spawn } from 'node:child_process';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';

const MAX_OUTPUT = 20_000;

/**
 * Git settings a repository can plant to run code on a plain `git status` or `git diff`
 * (issue 13): every git the bash tool starts has them switched off, through git's own
 * environment (GIT_CONFIG_COUNT/KEY/VALUE, git 2.31+), which outranks the repository's config.
 */
const NEUTRAL_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['core.sshCommand', 'ssh'],
  ['core.askPass', ''],
  ['diff.external', ''],
  ['sequence.editor', 'true'],
  ['credential.helper', ''],
  ['protocol.ext.allow', 'never'],
  ['uploadpack.packObjectsHook', ''],
];

/** The environment of a command of the bash tool: the process's, with git's repository helpers off. */
export function bashEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const git: Record<string, string> = {
    GIT_CONFIG_COUNT: String(NEUTRAL_GIT_CONFIG.length),
    GIT_PAGER: 'cat',
    GIT_EDITOR: 'true',
    GIT_TERMINAL_PROMPT: '0',
  };
  NEUTRAL_GIT_CONFIG.forEach(([key, value], index) => {
    git[`GIT_CONFIG_KEY_${index}`] = key;
    git[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return { ...base, ...git };
}

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
      const child = spawn('bash', ['-c', command], {
        cwd: context.workspaceRoot,
        env: bashEnvironment(),
        signal: context.signal,
        timeout: timeoutMs,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-MAX_OUTPUT)));
      child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-MAX_OUTPUT)));
      child.on('error', reject);
      child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
    });
  },
});
