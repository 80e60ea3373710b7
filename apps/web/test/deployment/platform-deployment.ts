import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deployChatParts } from '@interlock/chat/testing';
import { createWorker, type InterlockWorker } from '@interlock/core';
import { api, newDeployment, watch, type Child, type Deployment } from './deployment-harness.js';
import { spawnProcessGroup } from '@interlock/core/testing';

/*
 * A deployment that shows its chat on a messaging platform (F57), every part its own
 * process as docs/chat.md runs them: the built `interlock-web` with the connectors of its
 * project file (`[chat] workflow`, `[chat.<platform>]`), the chat's agent in a worker (here,
 * the test process), a second `interlock-web` without connectors (another server of the same
 * deployment: its inbox and its chat view), and the built `interlock respond`.
 */

const WEB_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const CLI_MAIN = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));
const run = promisify(execFile);

export interface WebServer {
  server: Child;
  baseUrl: string;
  token: string;
  /** What `interlock-web` printed for each connector it started (`Slack` → its URL). */
  connectors: Map<string, string>;
}

export interface PlatformDeployment {
  deployment: Deployment;
  worker: InterlockWorker;
  /** The calls the chat's tool ran, in order. */
  runs: { service: string }[];
  /** The server with the connectors. */
  web: WebServer;
  /** Another server of the deployment, without connectors. */
  other: WebServer;
  /** Moves the worker's clock on (the approvals' deadlines are measured on it). */
  advance(ms: number): void;
  /** `interlock respond <id> <answer…>` in its own process; resolves with its exit code and output. */
  respondInCli(interactionId: string, ...answer: string[]): Promise<{ code: number; output: string }>;
  /** The tool approvals waiting in the inbox of `server`. */
  inboxApprovals(server: WebServer): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Starts the deployment: the worker serving the deploy chat (its only tool, `deploy`, always
 * asks; an approval waits 10 minutes), then the web server whose project file is `toml`
 * (the `[chat.<platform>]` table; `[chat] workflow` is added) with `environment` for the
 * secrets it names, and the second web server. On PostgreSQL (default) the servers hear of
 * changes from its change feed; on a SQLite file they look at it every second.
 */
export async function startPlatformDeployment(
  toml: string,
  environment: Record<string, string>,
  options: { on?: 'PostgreSQL' | 'SQLite' } = {},
): Promise<PlatformDeployment> {
  const deployment = await newDeployment();
  const sqlite = join(deployment.dir, 'interlock.db');
  const store = options.on === 'SQLite' ? `sqlite:${sqlite}` : storeUrl(deployment);
  const { runs, tool, model, workflow } = deployChatParts();
  let offset = 0;
  const worker = await createWorker({
    store: options.on === 'SQLite' ? { type: 'sqlite', path: sqlite } : deployment.store,
    workflows: [workflow],
    tools: [tool],
    models: { default: model },
    pollMs: 100,
    clock: { now: () => Date.now() + offset },
  });
  const started: Child[] = [];
  const close = async () => {
    for (const child of started.splice(0).reverse()) {
      child.child.kill('SIGTERM');
      await child.exit;
    }
    await worker.stop();
  };
  try {
    const config = join(deployment.dir, 'interlock.toml');
    await writeFile(config, `[chat]\nworkflow = "${workflow.id}"\n\n${toml}\n`);
    const web = await startWeb(deployment, store, 'web', ['--config', config], environment, started);
    const other = await startWeb(deployment, store, 'other', ['--no-config', '--chat', workflow.id], {}, started);
    return {
      deployment,
      worker,
      runs,
      web,
      other,
      advance: (ms) => (offset += ms),
      respondInCli: async (interactionId, ...answer) => {
        try {
          const { stdout, stderr } = await run(
            process.execPath,
            [CLI_MAIN, 'respond', interactionId, ...answer, '--store', store],
            { cwd: deployment.dir, env: { ...process.env, INTERLOCK_STORE: '' } },
          );
          return { code: 0, output: stdout + stderr };
        } catch (error) {
          const failed = error as { code?: number; stdout?: string; stderr?: string };
          return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
        }
      },
      inboxApprovals: async (server) =>
        (
          (await api(server.baseUrl, server.token, '/api/interactions')).body.interactions as {
            interactionId: string;
            operationType: string;
          }[]
        )
          .filter((interaction) => interaction.operationType === 'TOOL_APPROVAL')
          .map((interaction) => interaction.interactionId),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function storeUrl(deployment: Deployment): string {
  const url = new URL(deployment.store.url);
  url.searchParams.set('schema', deployment.store.schema);
  return url.toString();
}

async function startWeb(
  deployment: Deployment,
  store: string,
  name: string,
  args: string[],
  environment: Record<string, string>,
  started: Child[],
): Promise<WebServer> {
  const server = watch(
    spawnProcessGroup(
      process.execPath,
      [
        WEB_MAIN,
        '--store',
        store,
        '--port',
        '0',
        '--approvers',
        join(deployment.dir, `approvers-${name}.json`),
        '--new-token',
        '--rate-limit',
        '1000000',
        '--workspace',
        join(deployment.dir, `workspace-${name}`),
        ...args,
      ],
      {
        cwd: deployment.dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, INTERLOCK_STORE: '', ...environment },
      },
    ),
  );
  started.push(server);
  const listening = await server.printed(/Interlock web inbox: (http:\/\/\S+?)\/\n/);
  const [, baseUrl = ''] = listening;
  const [, token = ''] = await server.printed(/\n\n {2}(\S+)\n\n/);
  const connectors = new Map(
    [...listening.input.matchAll(/^Chat on (\w+): (\S+)$/gm)].map(([, platform = '', url = '']) => [platform, url]),
  );
  return { server, baseUrl, token, connectors };
}
