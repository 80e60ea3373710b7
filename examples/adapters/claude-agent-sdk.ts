/**
 * The Claude Agent SDK under Interlock, offline (docs/adapters.md): Claude Code (the SDK's
 * own binary) runs against a local scripted Messages server; Interlock's canUseTool refuses
 * a banned command at once and asks about a write, which a person approves with an edit
 * (here, in code as the question arrives: in an app, the web inbox or `interlock respond`).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { ofType } from '@interlock/core';
import { interlockPermissions } from '@interlock/claude-agent-sdk';
import { startLocalModel } from './local-model.js';

/** Runs the example; `log` receives what it prints. */
export async function main(log: (...values: unknown[]) => void = console.log): Promise<void> {
  const workspace = await mkdtemp(join(tmpdir(), 'interlock-claude-example-'));
  const local = await startLocalModel('messages', [
    { toolCalls: [{ id: 'toolu_1', name: 'Bash', arguments: { command: 'terraform destroy -auto-approve' } }] },
    {
      toolCalls: [
        { id: 'toolu_2', name: 'Write', arguments: { file_path: join(workspace, 'NOTES.md'), content: 'draft' } },
      ],
    },
    { text: 'I wrote NOTES.md and left the infrastructure alone.' },
  ]);
  const permissions = await interlockPermissions({
    workspaceRoot: workspace,
    // A rule of your own beside the built-in ones (which ban `rm -rf ~`, `mkfs`, …).
    shell: {
      extraBanned: [
        {
          id: 'terraform-destroy',
          programs: ['terraform'],
          reason: 'destroys infrastructure',
          when: { subcommands: ['destroy'] },
        },
      ],
    },
  });
  permissions.gate.interlock.events$.pipe(ofType('USER_INTERACTION_REQUESTED')).subscribe((event) => {
    log('asked:', event.request.toolApproval?.toolName);
    void permissions.gate.interlock.respond(event.interactionId, {
      approved: true,
      editedParameters: { file_path: join(workspace, 'NOTES.md'), content: '# Notes\n' },
    });
  });
  const options = {
    cwd: workspace,
    settingSources: [],
    model: 'local',
    canUseTool: permissions.canUseTool,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: workspace,
      ANTHROPIC_BASE_URL: local.baseURL,
      ANTHROPIC_API_KEY: 'local',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  };
  for await (const message of query({ prompt: 'Write the notes', options })) {
    if (message.type === 'result') log('result:', message.subtype === 'success' ? message.result : message.subtype);
  }
  log('NOTES.md:', JSON.stringify(await readFile(join(workspace, 'NOTES.md'), 'utf8')));
  await permissions.close();
  await local.close();
}
