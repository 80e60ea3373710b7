#!/usr/bin/env node
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SQLITE_PATH } from '@interlock/core';
import { RELEASE_AGENT_WORKFLOW } from './demo/web-demo.js';
import { DEFAULT_APPROVERS_PATH, loadApprovers } from './server/auth/approvers-file.js';
import { createWebServer, WEB_CHANNEL } from './server/create-web-server.js';
import { createWebInterlock, type WebStoreOptions } from './web-composition-root.js';

/** The port `interlock-web` listens on unless `--port` says otherwise. */
export const DEFAULT_PORT = 7878;

const HELP = `interlock-web: the approval inbox of Interlock.

Usage: interlock-web [options]

  --store SPEC       sqlite:<path> (default sqlite:${DEFAULT_SQLITE_PATH}), postgres://…, or memory
  --host HOST        default 127.0.0.1 (only this machine)
  --port PORT        default ${DEFAULT_PORT}; 0 picks a free one
  --approvers FILE   the approvers file (default ${DEFAULT_APPROVERS_PATH}); created at first start
                     with one approver, "admin", whose token is printed once
  --new-token        give "admin" a new token (printed once)
  --workspace DIR    where file and shell tools work (default .interlock/web-workspace)
  --demo             start a release-agent thread now if nothing waits, and give "admin"
                     a new token (printed)
  --log              log requests (tokens and cookies are redacted)
  --help
`;

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      store: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      approvers: { type: 'string', default: DEFAULT_APPROVERS_PATH },
      'new-token': { type: 'boolean', default: false },
      workspace: { type: 'string', default: '.interlock/web-workspace' },
      demo: { type: 'boolean', default: false },
      log: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port must be a port number, not ${values.port}`);
  const workspaceRoot = resolve(values.workspace);
  await mkdir(workspaceRoot, { recursive: true });
  // The demo prints a token at every start, so `pnpm demo:web` can always be signed in to.
  const access = await loadApprovers(values.approvers, { rotate: values['new-token'] || values.demo });
  const web = await createWebInterlock({ store: parseStore(values.store), workspaceRoot, workflowApprovers: access.workflowApprovers });
  const { interlock, store, workflows, chat } = web;
  const app = await createWebServer({ interlock, store, chat, approvers: access.approvers, workflowApprovers: access.workflowApprovers, workflows, logger: values.log });
  const address = await app.listen({ host: values.host, port });
  const url = address.replace('[::1]', 'localhost');
  process.stdout.write(`Interlock web inbox: ${url}/\n`);
  if (access.newToken !== undefined) {
    process.stdout.write(`Sign in as "admin" with this token (shown once; only its hash is kept in ${values.approvers}):\n\n  ${access.newToken}\n\n`);
  } else {
    process.stdout.write(`Sign in with the token printed at first start (or restart with --new-token for a new one).\n`);
  }
  if (values.demo && (await interlock.pending()).length === 0) {
    const thread = await interlock.start(RELEASE_AGENT_WORKFLOW, { channel: WEB_CHANNEL });
    process.stdout.write(`Started a release-agent thread (${thread.threadId}): its calls wait in the inbox.\n`);
  }
  process.stdout.write('Press Ctrl+C to stop; waiting threads stay in the store.\n');
  const stop = async () => {
    await app.close();
    await web.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

function parseStore(spec: string | undefined): WebStoreOptions {
  const given = spec ?? process.env['INTERLOCK_STORE'] ?? `sqlite:${DEFAULT_SQLITE_PATH}`;
  if (given === 'memory') return { type: 'memory' };
  if (given === 'sqlite') return { type: 'sqlite', path: resolve(DEFAULT_SQLITE_PATH) };
  if (given.startsWith('sqlite:')) return { type: 'sqlite', path: resolve(given.slice('sqlite:'.length)) };
  if (/^postgres(ql)?:\/\//i.test(given)) {
    const url = new URL(given);
    const schema = url.searchParams.get('schema');
    url.searchParams.delete('schema');
    return { type: 'postgres', url: url.toString(), ...(schema === null ? {} : { schema }) };
  }
  throw new Error(`--store takes sqlite:<path>, postgres://… or memory`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`interlock-web: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
