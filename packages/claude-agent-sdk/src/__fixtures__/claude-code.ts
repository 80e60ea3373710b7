import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { query, type Options } from '@anthropic-ai/claude-agent-sdk';
import type { MessagesServer } from './messages-server.js';

/**
 * Claude Code, offline: the local Messages server, a home of its own under `dir`, no
 * traffic but the model's. `bin` goes first on its PATH (the tests' stand-in commands).
 */
export function claudeOptions(
  { dir, server, bin }: { dir: string; server: MessagesServer; bin?: string },
  extra: Partial<Options>,
): Options {
  const path = process.env['PATH'] ?? '';
  return {
    cwd: dir,
    settingSources: [],
    maxTurns: 8,
    model: 'claude-fixture',
    env: {
      PATH: bin === undefined ? path : `${bin}:${path}`,
      HOME: join(dir, 'home'),
      ANTHROPIC_BASE_URL: server.baseURL,
      ANTHROPIC_API_KEY: 'test-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
    ...extra,
  };
}

/** Runs the query to its end: the result's text, or its subtype when it did not succeed. */
export async function runToEnd(options: Options, prompt = 'Write the notes'): Promise<string | undefined> {
  let result: string | undefined;
  for await (const message of query({ prompt, options })) {
    if (message.type === 'result') result = message.subtype === 'success' ? message.result : message.subtype;
  }
  return result;
}

/** Every tool_result the model was sent, as text. */
export function toolResults(server: MessagesServer): string {
  return JSON.stringify(
    server.requests.flatMap((request) =>
      ((request['messages'] ?? []) as { content?: unknown }[]).flatMap((message) =>
        Array.isArray(message.content)
          ? (message.content as { type?: string }[]).filter((part) => part.type === 'tool_result')
          : [],
      ),
    ),
  );
}

/**
 * The tests' banned command (`shell.extraBanned`): `terraform destroy`. What is allowed runs
 * in the real Bash tool, where terraform is missing or the stand-in of {@link fakeTerraform},
 * which only logs what it ran: nothing is destroyed if a banned call ever ran.
 */
export const TERRAFORM_DESTROY = {
  id: 'terraform-destroy',
  programs: ['terraform'],
  reason: 'destroys infrastructure',
  when: { subcommands: ['destroy'] },
};

/**
 * A stand-in `terraform` in `dir/bin`: it only writes the arguments it ran with to
 * `dir/terraform.log`, so a test sees which commands Claude Code's Bash tool really ran.
 */
export async function fakeTerraform(dir: string): Promise<{ bin: string; log: string }> {
  const bin = join(dir, 'bin');
  const log = join(dir, 'terraform.log');
  await mkdir(bin, { recursive: true });
  await writeFile(log, '');
  await writeFile(join(bin, 'terraform'), `#!/bin/sh\necho "terraform $*" >> '${log}'\n`);
  await chmod(join(bin, 'terraform'), 0o755);
  return { bin, log };
}
