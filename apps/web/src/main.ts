#!/usr/bin/env node
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DEFAULT_SQLITE_PATH,
  findProjectConfig,
  isLoopbackHost,
  loadProjectConfig,
  resolveStoreOptions,
  storeFromProjectConfig,
  storeReadiness,
  type Interlock,
  type LoadedProjectConfig,
} from '@interlock/core';
import type { FastifyInstance } from 'fastify';
import type { ChatChannel } from '@interlock/chat';
import { startTelemetry, telemetryOptionsOf } from '@interlock/telemetry';
import { chatApproverNames, startChatPlatforms } from './chat-platforms.js';
import { createDeploymentInterlock } from './deployment/deployment-interlock.js';
import { RELEASE_AGENT_WORKFLOW } from './demo/web-demo.js';
import { ApproverDirectory } from './server/auth/approver-directory.js';
import { DEFAULT_APPROVERS_PATH, loadApprovers } from './server/auth/approvers-file.js';
import { authOptionsFrom } from './server/auth/auth-options.js';
import { createWebServer, DEFAULT_RATE_LIMITS, WEB_CHANNEL } from './server/create-web-server.js';
import { createWebInterlock, type WebStoreOptions } from './web-composition-root.js';

/** The port `interlock-web` listens on unless `--port` says otherwise. */
export const DEFAULT_PORT = 7878;

const HELP = `interlock-web: the approval inbox of Interlock.

Usage: interlock-web [options]

Without --demo it is the inbox of a deployment: it answers and runs no thread. An answer is
stored with the job that continues its thread in a worker serving the workflow (createWorker
in your service, or interlock worker); the page starts only workflows some worker serves.

  --store SPEC       sqlite:<path> (default sqlite:${DEFAULT_SQLITE_PATH}), postgres://…, or memory (--demo only)
  --host HOST        default 127.0.0.1 (only this machine)
  --port PORT        default ${DEFAULT_PORT}; 0 picks a free one
  --approvers FILE   the approvers file (default ${DEFAULT_APPROVERS_PATH}); created at first start
                     with one approver, "admin", whose token is printed once
  --new-token        give "admin" a new token (printed once)
  --workspace DIR    where file and shell tools work (default .interlock/web-workspace)
  --demo             the demo: this process runs its own scripted agents and workflows;
                     starts a release-agent thread now if nothing waits, and gives "admin"
                     a new token (printed)
  --chat WORKFLOW    (deployment) the workflow the chat view starts; a worker must serve it
                     (default: [chat] workflow of the project file). [chat.slack], [chat.feishu]
                     and [chat.whatsapp] there show the chats on those platforms too
  --config FILE      the project file (default interlock.toml or interlock.json here):
                     its store, [approvers] lists and approval rules; --no-config reads none
                     [auth] there: sessions, and sign-in with the identity provider ([auth.oidc])
  --rate-limit N     API requests per minute from one client (default ${DEFAULT_RATE_LIMITS.perMinute}; sign-in ${DEFAULT_RATE_LIMITS.signInPerMinute})
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
      chat: { type: 'string' },
      log: { type: 'boolean', default: false },
      'rate-limit': { type: 'string', default: String(DEFAULT_RATE_LIMITS.perMinute) },
      config: { type: 'string' },
      'no-config': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port must be a port number, not ${values.port}`);
  const perMinute = Number(values['rate-limit']);
  if (!Number.isSafeInteger(perMinute) || perMinute < 1)
    throw new Error(`--rate-limit must be a whole number of requests per minute, not ${values['rate-limit']}`);
  const workspaceRoot = resolve(values.workspace);
  await mkdir(workspaceRoot, { recursive: true });
  // The demo prints a token at every start, so `pnpm demo:web` can always be signed in to.
  const access = await loadApprovers(values.approvers, { rotate: values['new-token'] || values.demo });
  const projectPath = values['no-config'] ? undefined : (values.config ?? (await findProjectConfig(process.cwd())));
  const project = projectPath === undefined ? undefined : await loadProjectConfig(projectPath);
  // Before createInterlock, so core's metrics are recorded (F59).
  const telemetryConfig = project?.config.telemetry;
  const telemetry =
    telemetryConfig === undefined ? undefined : startTelemetry(telemetryOptionsOf(telemetryConfig, 'interlock-web'));
  const storeOptions = parseStore(values.store, project);
  // The file is followed: an approver added or removed takes effect without a restart.
  const approvers = ApproverDirectory.watch(
    values.approvers,
    access,
    (message) => process.stderr.write(`interlock-web: ${message}\n`),
    500,
    {
      workflowApprovers: project?.config.approvers?.workflows ?? {},
      separationOfDuties: project?.config.approvers?.separationOfDuties ?? {},
      // The names [chat.*] approvers maps give platform users answer in the chat (docs/chat.md).
      chatApprovers: chatApproverNames(project?.config.chat),
    },
  );
  const workflowApprovers = approvers;
  const rateLimits = { perMinute };
  // The identity provider's secret and the session key come from the variables the file names.
  const auth = authOptionsFrom(project?.config.auth, process.env);
  // The provider's callback is never built from a request's Host header off this machine.
  if (auth.oidc !== undefined && auth.oidc.redirectUrl === undefined && !isLoopbackHost(values.host))
    throw new Error(
      `[auth.oidc] needs redirectUrl (the public https://…/api/auth/callback of this server) when interlock-web listens on ${values.host}: without it, the sign-in link would be built from whatever Host header a request carries`,
    );
  let readiness: ReturnType<typeof storeReadiness> | undefined;
  let web: { interlock: Interlock; close(): Promise<void> };
  let app: FastifyInstance;
  let chatOfServer: ChatChannel | undefined;
  if (values.demo) {
    const demo = await createWebInterlock({ store: storeOptions, workspaceRoot, workflowApprovers });
    const { interlock, store, workflows, chat } = demo;
    chatOfServer = chat;
    web = demo;
    readiness = storeReadiness(store, storeOptions);
    app = await createWebServer({
      interlock,
      store,
      chat,
      approvers,
      workflows,
      rateLimits,
      logger: values.log,
      auth,
      readiness: readiness.checks,
    });
  } else {
    if (storeOptions.type === 'memory')
      throw new Error(
        'a deployment shares its store with its workers: use --store sqlite:<path> or postgres://… (memory is for --demo)',
      );
    const chatWorkflow = values.chat ?? project?.config.chat?.workflow;
    const deployment = await createDeploymentInterlock({
      store: storeOptions,
      workflowApprovers,
      ...(project === undefined ? {} : { config: project }),
      ...(chatWorkflow === undefined ? {} : { chatWorkflow }),
    });
    const { interlock, store, workflows, chat } = deployment;
    chatOfServer = chat;
    web = deployment;
    // An answer is stored with the job that hands its thread to a worker: the queue must take it.
    readiness = storeReadiness(store, storeOptions, { jobQueue: true });
    app = await createWebServer({
      auth,
      readiness: readiness.checks,
      interlock,
      store,
      approvers,
      workflows,
      ...(chat === undefined ? {} : { chat }),
      expireDeadlines: false,
      rateLimits,
      logger: values.log,
    });
    deployment.followStore(app.liveUpdates, (message) => app.log.warn(message));
    const served = await workflows();
    process.stdout.write(
      served.length === 0
        ? 'No worker serves a workflow yet: run createWorker() in your service, or interlock worker <workflow files> --store … (the page lists them as they come).\n'
        : `Workflows served by workers: ${served.map((workflow) => workflow.id).join(', ')}\n`,
    );
  }
  const platformsConfig = project?.config.chat;
  if (
    (platformsConfig?.slack ?? platformsConfig?.feishu ?? platformsConfig?.whatsapp) !== undefined &&
    chatOfServer === undefined
  )
    throw new Error(
      '[chat.slack] / [chat.feishu] / [chat.whatsapp] need a chat: give --chat WORKFLOW or [chat] workflow',
    );
  const platforms =
    chatOfServer === undefined
      ? undefined
      : await startChatPlatforms(chatOfServer, platformsConfig, {
          warn: (message) => process.stderr.write(`interlock-web: ${message}\n`),
        });
  for (const line of platforms?.started ?? []) process.stdout.write(`Chat on ${line}\n`);
  // Listening for a stop before saying where it serves: a supervisor may stop it the moment it reads that.
  const stop = async () => {
    await platforms?.stop();
    await app.close();
    await readiness.close();
    await web.close();
    await telemetry?.shutdown();
    process.exit(0);
  };
  const stopOrReport = () =>
    void stop().catch((error: unknown) => {
      process.stderr.write(`Could not stop cleanly: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
  process.once('SIGINT', stopOrReport);
  process.once('SIGTERM', stopOrReport);
  const address = await app.listen({ host: values.host, port });
  const url = address.replace('[::1]', 'localhost');
  process.stdout.write(`Interlock web inbox: ${url}/\n`);
  process.stdout.write(`Health: ${url}/healthz and ${url}/readyz\n`);
  if (access.newToken !== undefined) {
    process.stdout.write(
      `Sign in as "admin" with this token (shown once; only its hash is kept in ${values.approvers}):\n\n  ${access.newToken}\n\n`,
    );
  } else {
    process.stdout.write(
      `Sign in with the token printed at first start (or restart with --new-token for a new one).\n`,
    );
  }
  if (values.demo && (await web.interlock.pending()).length === 0) {
    const thread = await web.interlock.start(RELEASE_AGENT_WORKFLOW, { channel: WEB_CHANNEL });
    process.stdout.write(`Started a release-agent thread (${thread.threadId}): its calls wait in the inbox.\n`);
  }
  process.stdout.write('Press Ctrl+C to stop; waiting threads stay in the store.\n');
}

/**
 * `--store`, else INTERLOCK_STORE, else the project file's `[store]` (read as every command
 * reads it), else the SQLite default. A PostgreSQL URL's `?schema=` names the schema, for this
 * server as for the workers (`createWorker({ store: { url } })` reads it the same way).
 */
function parseStore(spec: string | undefined, project: LoadedProjectConfig | undefined): WebStoreOptions {
  const fromProject = project === undefined ? undefined : storeFromProjectConfig(project);
  if (spec === undefined && !process.env['INTERLOCK_STORE'] && fromProject !== undefined) {
    if (fromProject.type === 'sqlite')
      return { type: 'sqlite', path: fromProject.path ?? resolve(DEFAULT_SQLITE_PATH) };
    if (fromProject.type === 'postgres')
      return {
        type: 'postgres',
        url: fromProject.url,
        ...(fromProject.schema === undefined ? {} : { schema: fromProject.schema }),
      };
    return { type: 'memory' };
  }
  const given = spec || process.env['INTERLOCK_STORE'] || `sqlite:${DEFAULT_SQLITE_PATH}`;
  if (given === 'memory') return { type: 'memory' };
  if (given === 'sqlite') return { type: 'sqlite', path: resolve(DEFAULT_SQLITE_PATH) };
  if (given.startsWith('sqlite:')) return { type: 'sqlite', path: resolve(given.slice('sqlite:'.length)) };
  if (/^postgres(ql)?:\/\//i.test(given)) {
    const store = resolveStoreOptions({ type: 'postgres', url: given });
    if (store.type === 'postgres')
      return { type: 'postgres', url: store.url, ...(store.schema === undefined ? {} : { schema: store.schema }) };
  }
  throw new Error(`--store takes sqlite:<path>, postgres://…[?schema=name] or memory`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`interlock-web: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
