import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadProjectConfig,
  type ApprovalGate,
  type ApprovalGateOptions,
  type LoadedProjectConfig,
} from '@interlock/core';
import { startChatCompletionsServer, type ChatCompletionsServer } from '@interlock/core/testing';
import { afterEach, beforeEach } from 'vitest';
import { ledgerAt, type Ledger } from './ledger.js';

/** An agent of a framework under Interlock, as an adapter returns it. */
export interface GuardedAgent {
  readonly gate: ApprovalGate;
  close(): Promise<void>;
}

/** What a run came to: paused on a question, or completed with the model's last text. */
export type RunOutcome = { status: 'paused' } | { status: 'completed'; output: unknown };

/** The options the shared cases give an adapter, beside the tools as the README declares them. */
export type CaseOptions = Partial<
  Pick<ApprovalGateOptions, 'name' | 'clock' | 'approvalTimeoutMs' | 'store' | 'config'>
>;

/** Where the tests' agent (an adapter's `test/test-agent.mjs`) talks and writes. */
export interface AgentPlace {
  /** The chat completions server's base URL: the agent's model. */
  baseURL: string;
  /** The ledger file its tools append each call they ran to. */
  ledger: string;
  /** The test's temporary directory: the agent's workspace. */
  dir: string;
}

/** How the shared cases drive one framework's agent under Interlock. */
export interface AgentDriver<G extends GuardedAgent, O> {
  /** The temporary directory's name starts `interlock-<prefix>-`. */
  readonly prefix: string;
  /** The gate's name when the options name none, as another process of the gate opens it. */
  readonly gateName: string;
  /** The tests' agent under Interlock with `options`; `finished` is told the last output of each run the gate continued. */
  open(options: O | undefined, place: AgentPlace, finished: (output: unknown) => void): Promise<G>;
  /** Starts a run on `prompt`, in the thread `threadId` where the framework takes one. */
  start(guarded: G, prompt: string, threadId: string): Promise<RunOutcome>;
}

/** An agent the harness guarded: `finished()` resolves with the next run the gate continued, in turn. */
export interface Guarded<G extends GuardedAgent> {
  guarded: G;
  /** The outputs of the runs the gate continued, in the order they finished. */
  outputs: unknown[];
  finished(): Promise<unknown>;
}

/** The state of a test of the shared cases, and its helpers (methods: a harness of any adapter serves them). */
export interface AgentHarness<G extends GuardedAgent = GuardedAgent, O = CaseOptions> {
  readonly driver: AgentDriver<G, O>;
  readonly server: ChatCompletionsServer;
  readonly dir: string;
  readonly ledger: Ledger;
  /** The agent under Interlock (tools as the README declares them), closed after the test. */
  guard(options?: O): Promise<Guarded<G>>;
  start(guarded: G, prompt: string, threadId: string): Promise<RunOutcome>;
  /** What the model was told in request `index` (from the end when negative), as text. */
  told(index: number): string;
  /** Every request the model got, as text: what the model was told. */
  prompts(): string;
}

/**
 * A chat completions server (the model of the agent under test) started before each test,
 * closed after it, once what the test opened with `closing` is closed.
 */
export function chatModelPerTest() {
  let server: ChatCompletionsServer;
  const closers: (() => Promise<unknown>)[] = [];
  beforeEach(async () => {
    server = await startChatCompletionsServer();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await server.close();
  });
  return {
    get server(): ChatCompletionsServer {
      return server;
    },
    /** Closes `opened` after the test, before the server: `opened`. */
    closing<T extends { close(): Promise<unknown> }>(opened: T): T {
      closers.push(() => opened.close());
      return opened;
    },
  };
}

/**
 * Starts a chat completions server (the agent's model), a temporary directory and an empty
 * ledger before each test, and closes what the test guarded and the server after it.
 */
export function agentHarness<G extends GuardedAgent, O>(driver: AgentDriver<G, O>): AgentHarness<G, O> {
  const model = chatModelPerTest();
  let dir: string;
  let ledger: Ledger;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), `interlock-${driver.prefix}-`));
    ledger = ledgerAt(join(dir, 'ledger.jsonl'));
    await ledger.reset();
  });

  const messagesOf = (request: Record<string, unknown> | undefined): unknown => request?.['messages'] ?? [];

  return {
    driver,
    get server() {
      return model.server;
    },
    get dir() {
      return dir;
    },
    get ledger() {
      return ledger;
    },
    async guard(options) {
      const outputs: unknown[] = [];
      let taken = 0;
      let notify: () => void = () => undefined;
      const place = { baseURL: model.server.baseURL, ledger: ledger.path, dir };
      const guarded = model.closing(
        await driver.open(options, place, (output) => {
          outputs.push(output);
          notify();
        }),
      );
      const finished = async (): Promise<unknown> => {
        // A continuation may finish while the gate starts: outputs keeps it until asked for.
        while (outputs.length <= taken) await new Promise<void>((resolve) => (notify = resolve));
        taken += 1;
        return outputs[taken - 1];
      };
      return { guarded, outputs, finished };
    },
    start: (guarded, prompt, threadId) => driver.start(guarded, prompt, threadId),
    told: (index) => JSON.stringify(messagesOf(model.server.requests.at(index))),
    prompts: () => JSON.stringify(model.server.requests.map(messagesOf)),
  };
}

/** The project file of the rules cases in `dir`: its allow rule lets CHANGELOG.md be written, its deny rule refuses secrets*. */
export async function projectRules(dir: string): Promise<LoadedProjectConfig> {
  const path = join(dir, 'interlock.toml');
  await writeFile(
    path,
    `[approval]\ndenyRules = ['tool == "write_file" && args.path.startsWith("secrets")']\nallowRules = ['tool == "write_file" && args.path == "CHANGELOG.md"']\n`,
  );
  return loadProjectConfig(path);
}
