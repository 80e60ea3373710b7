import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ThreadOutcome } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import type { FastifyInstance } from 'fastify';
import { RELEASE_AGENT_WORKFLOW } from '../src/demo/web-demo.js';
import { ApproverDirectory } from '../src/server/auth/approver-directory.js';
import {
  createToken,
  hashToken,
  type SeparationOfDuties,
  type WorkflowApprovers,
} from '../src/server/auth/approvers.js';
import { loadApprovers } from '../src/server/auth/approvers-file.js';
import { createWebServer, WEB_CHANNEL, type RateLimits, type WebAuthOptions } from '../src/server/create-web-server.js';
import { createWebInterlock, type WebInterlock, type WebInterlockOptions } from '../src/web-composition-root.js';

/** A clock the test moves by hand. */
export interface ManualClock {
  now(): number;
  advance(milliseconds: number): void;
}

export function manualClock(start = Date.now()): ManualClock {
  let current = start;
  return { now: () => current, advance: (milliseconds) => (current += milliseconds) };
}

export interface HarnessOptions {
  /** Approver names; each gets a random token. Default alice and bob. */
  approvers?: string[];
  /** Groups the approvers file gives some of them. */
  groups?: Record<string, string[]>;
  workflowApprovers?: WorkflowApprovers;
  approvalTimeout?: string | number;
  clock?: ManualClock;
  bodyLimit?: number;
  pollInterval?: number;
  /** Reuse the store (and workspace) of a harness closed with `stop()`, as a restarted server would. */
  directory?: string;
  /** Turns the request log on, into this stream. */
  logStream?: NodeJS.WritableStream;
  separationOfDuties?: SeparationOfDuties;
  rateLimits?: Partial<RateLimits>;
  /** Sign-in and sessions, as `[auth]` gives them. */
  auth?: WebAuthOptions;
  /** Keep the approvers in `approvers.json` of the directory and follow the file (polled every 100 ms). */
  approversFile?: boolean;
  /** The engine's approval options (a quorum, F51). */
  approval?: WebInterlockOptions['approval'];
}

/** A web server on 127.0.0.1 over a SQLite file in a temporary directory, with the demo workflows. */
export interface WebHarness extends WebInterlock {
  app: FastifyInstance;
  baseUrl: string;
  tokens: Record<string, string>;
  directory: string;
  /** Where the approvers are kept when `approversFile` is on. */
  approversFile: string;
  /** Starts a release-agent thread on the web channel and waits until it waits for its approvals: write_file, then bash. */
  startReleaseAgent(): Promise<{ threadId: string; approvals: UserInteractionRequest[]; outcome: ThreadOutcome }>;
  close(): Promise<void>;
  /** Stops the server and the engine but keeps the store, for a restart. */
  stop(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<WebHarness> {
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'interlock-web-')));
  const names = options.approvers ?? ['alice', 'bob'];
  const tokens = Object.fromEntries(names.map((name) => [name, createToken()]));
  const approversFile = join(directory, 'approvers.json');
  const fixed = {
    approvers: names.map((name) => ({
      name,
      tokenSha256: hashToken(tokens[name] ?? ''),
      ...(options.groups?.[name] === undefined ? {} : { groups: options.groups[name] }),
    })),
    workflowApprovers: options.workflowApprovers ?? {},
    separationOfDuties: options.separationOfDuties ?? {},
  };
  if (options.approversFile) {
    const file = {
      approvers: fixed.approvers,
      workflows: fixed.workflowApprovers,
      separationOfDuties: fixed.separationOfDuties,
    };
    await writeFile(approversFile, JSON.stringify(file));
  }
  // One directory for the inbox and the chat, as interlock-web has.
  const access = options.approversFile
    ? ApproverDirectory.watch(approversFile, await loadApprovers(approversFile), () => undefined, 100)
    : ApproverDirectory.of(fixed);
  const web = await createWebInterlock({
    store: { type: 'sqlite', path: join(directory, 'interlock.db') },
    workspaceRoot: directory,
    approvalTimeout: options.approvalTimeout ?? 0,
    workflowApprovers: access,
    ...(options.approval === undefined ? {} : { approval: options.approval }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const app = await createWebServer({
    interlock: web.interlock,
    store: web.store,
    approvers: access,
    ...(options.rateLimits === undefined ? {} : { rateLimits: options.rateLimits }),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    workflows: web.workflows,
    chat: web.chat,
    pollInterval: options.pollInterval ?? 200,
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    ...(options.logStream === undefined ? {} : { logger: true, logStream: options.logStream }),
    ...(options.clock === undefined ? {} : { now: options.clock.now }),
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const stop = async () => {
    access.close();
    await app.close();
    await web.close();
  };
  return {
    ...web,
    app,
    baseUrl,
    tokens,
    directory,
    approversFile,
    async startReleaseAgent() {
      const thread = await web.interlock.start(RELEASE_AGENT_WORKFLOW, { channel: WEB_CHANNEL });
      const outcome = await thread.done();
      // In the order the model proposed them (both were asked at the same instant).
      const approvals = (await web.interlock.pending())
        .filter((request) => request.threadId === thread.threadId)
        .sort((a, b) => (a.toolApproval?.batch?.index ?? 0) - (b.toolApproval?.batch?.index ?? 0));
      return { threadId: thread.threadId, approvals, outcome };
    },
    stop,
    async close() {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** What {@link request} returns. */
export interface ApiResponse {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read whatever JSON came back
  headers: Headers;
}

export interface RequestOptions {
  method?: string;
  token?: string;
  cookie?: string;
  csrf?: string;
  origin?: string;
  body?: unknown;
  /** Sent as is, instead of JSON.stringify(body). */
  rawBody?: string;
  contentType?: string;
}

/** One HTTP request to the harness, as a script or a browser would send it. */
export async function request(
  harness: Pick<WebHarness, 'baseUrl'>,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.cookie !== undefined) headers['cookie'] = options.cookie;
  if (options.csrf !== undefined) headers['x-csrf-token'] = options.csrf;
  if (options.origin !== undefined) headers['origin'] = options.origin;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${harness.baseUrl}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Signs in with a token the way the page does: the session cookie and the CSRF token. */
export async function signIn(
  harness: WebHarness,
  name: string,
): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const response = await request(harness, '/api/session', { body: { token: harness.tokens[name] } });
  const setCookie = response.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0] ?? '', csrf: response.body.csrfToken, setCookie };
}

/** Calls `check` until it returns a value that is not undefined (work finishing in the background), or fails after `timeout` ms. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeout = 5000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > timeout) throw new Error('the condition was not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
