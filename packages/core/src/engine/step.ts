import type { ThreadJob } from '../workers/thread-jobs.js';
import type { ThreadRecord } from '../persistence/records.js';
import type {
  AuditDraft,
  GlobalChange,
  InteractionChange,
  RememberEntry,
  ToolCallChange,
} from '../persistence/unit-of-work.js';
import type { EmittedEvent } from './emitted-event.js';

/**
 * When a step's writes must be durable:
 * - `now`: before anything else happens (before a person is asked, before a tool's side
 *   effect, a global variable's atomic update, when the run stops);
 * - `soon`: with the next durability point, or at the end of this event-loop turn if none
 *   comes first (a tool's outcome, an answer taken in);
 * - absent: with the next durability point (work a crash may redo the same way).
 */
export type Durability = 'now' | 'soon';

/** What a transition asks for besides the thread's next value: rows to write and events to publish. */
export interface Effects {
  interactions?: readonly InteractionChange[];
  toolCalls?: readonly ToolCallChange[];
  audit?: readonly AuditDraft[];
  globals?: readonly GlobalChange[];
  remember?: readonly RememberEntry[];
  jobs?: readonly ThreadJob[];
  /** Published once the step is applied (after its commit, when it is durable). */
  events?: readonly EmittedEvent[];
  durable?: Durability;
  /**
   * The events tell of writes nobody may see before they are stored (a question): they are
   * published after the next commit instead of at once.
   */
  announceAfterCommit?: true;
}

/** The result of a transition `(thread, …) → { next, effects }`. */
export interface Step {
  next: ThreadRecord;
  effects?: Effects;
}

/** Effects one after the other (events in order; the stricter durability wins). */
export function combineEffects(...all: readonly (Effects | undefined)[]): Effects {
  const combined: {
    interactions: InteractionChange[];
    toolCalls: ToolCallChange[];
    audit: AuditDraft[];
    globals: GlobalChange[];
    remember: RememberEntry[];
    jobs: ThreadJob[];
    events: EmittedEvent[];
    durable?: Durability;
  } = { interactions: [], toolCalls: [], audit: [], globals: [], remember: [], jobs: [], events: [] };
  for (const effects of all) {
    if (effects === undefined) continue;
    combined.interactions.push(...(effects.interactions ?? []));
    combined.toolCalls.push(...(effects.toolCalls ?? []));
    combined.audit.push(...(effects.audit ?? []));
    combined.globals.push(...(effects.globals ?? []));
    combined.remember.push(...(effects.remember ?? []));
    combined.jobs.push(...(effects.jobs ?? []));
    combined.events.push(...(effects.events ?? []));
    if (effects.durable === 'now' || (effects.durable === 'soon' && combined.durable === undefined))
      combined.durable = effects.durable;
  }
  return combined;
}
