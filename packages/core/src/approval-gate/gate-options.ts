import type { InterlockOptions } from '../interlock-options.js';
import type { StoreOptions } from '../persistence/open-store.js';
import type { StartOptions } from '../engine/new-thread.js';
import type { ApprovalGate } from './approval-gate.js';
import type { GateDecision, GatePending } from './gate-decisions.js';
import type { GateToolPolicy } from './gate-tools.js';

/** A pause of an agent, as its continuation gets it: the framework's state and every call's decision. */
export interface GatePause {
  pauseId: string;
  /** The framework's serialised state, as the adapter stored it. */
  state: string;
  /** The session the calls were decided in. */
  session: { sessionId: string; chatId?: string };
  decisions: (GateDecision | GatePending)[];
}

/**
 * Continues the agent once every call of a pause is decided: in whichever process of the
 * gate learns it first, once (a write-ahead record guards it like any tool call). `gate` is
 * the gate continuing it — given also while `createApprovalGate` is still starting, when it
 * continues the pauses whose decisions ended while no gate ran.
 */
export type GateContinuation = (
  pause: GatePause,
  context: { signal: AbortSignal; gate: ApprovalGate },
) => Promise<unknown>;

/** How `ApprovalGate.decide` ended: every call decided, or paused until people answer. */
export type GateOutcome =
  | { status: 'decided'; decisions: GateDecision[] }
  /** `detach`: some calls wait for a person; read their decisions later with `ApprovalGate.decisions`. */
  | { status: 'pending'; decisions: (GateDecision | GatePending)[] }
  | { status: 'paused'; pauseId: string; decisions: (GateDecision | GatePending)[] };

export interface GateDecideOptions {
  /** The session the calls belong to (session memory, approvers, the chat). */
  session?: StartOptions['session'];
  /**
   * The framework's serialised state. Given: a call that needs a person pauses the agent —
   * the state is stored beside the calls and `decide` returns `paused`; the gate's
   * continuation takes the agent on once they are answered, in any process of the gate.
   * Left out: `decide` waits for the answers (the framework awaits the decision).
   */
  state?: () => string | Promise<string>;
  /** Aborted: the calls still waiting are cancelled (their interactions fail as `cancelled`). */
  signal?: AbortSignal;
  /**
   * Returns `pending` at once when a call waits for a person, storing no state and
   * continuing nothing: the framework keeps its own state and asks again later
   * (`ApprovalGate.decisions`). The AI SDK's approval requests work this way.
   */
  detach?: boolean;
}

/** How `createApprovalGate` builds a gate (F56). */
export interface ApprovalGateOptions extends Omit<
  InterlockOptions,
  'store' | 'tools' | 'toolFallback' | 'continueIn' | 'handlers' | 'recoverOnStart'
> {
  /** The gate's name: its workflows are `interlock-gate.<name>.*`. Letters, digits, `_`, `.` and `-`. */
  name: string;
  /**
   * How long (ms) a call waits for a person before it is rejected as timed out (the
   * decision's `decidedBy` is `timeout`; an answer given later is refused as expired).
   * Default 0: the question waits until it is answered, or until the agent stops waiting
   * (`decide({ signal })`). Gates on one store with different deadlines serve their own
   * threads (the deadline is part of the workflows' version).
   */
  approvalTimeoutMs?: number;
  /**
   * Where decisions, pauses and the audit live. SQLite or PostgreSQL make the gate a worker:
   * answers given anywhere (the web inbox, the chat, `interlock respond`) come back to it.
   * Default `{ type: 'memory' }` (one process).
   */
  store?: StoreOptions;
  /** How Interlock sees each of the agent's tools, by name. */
  tools?: Record<string, GateToolPolicy>;
  /** The policy of a tool not in `tools`. Default: category `ask` (a person decides, in every mode). */
  unknownTool?: GateToolPolicy;
  /** The channel the decisions are asked on. Default `agent`. */
  channel?: string;
  /** Takes a paused agent on once its calls are decided (needed for `decide` with `state`). */
  continuation?: GateContinuation;
  /** Told about a continuation that could not be started (it is tried again when the gate starts). Default: stderr. */
  onError?: (error: unknown) => void;
  /** For a worker gate: how many threads it takes forward at once (default 4) and how often it looks for jobs. */
  concurrency?: number;
  pollMs?: number;
  /**
   * How often (ms) the gate looks at the questions its decisions wait on, so a decision that
   * ends in a process that is no gate (`interlock respond` takes the thread on itself) still
   * continues its pause. Default 2000; 0 turns it off.
   */
  watchMs?: number;
}
