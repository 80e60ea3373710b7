import type { InteractionRecord, RememberedApprovals, ToolExecutionRecord } from '../persistence/checkpoint-store.js';
import { applyQuorumChange } from '../persistence/quorum-change.js';
import type { Effects } from './step.js';

/** How the thread came to a run. */
export type RunOrigin =
  /** Started here: stored by the run's first commit. */
  | { kind: 'new' }
  /** Read from the store: claimed by the run's first commit. */
  | {
      kind: 'stored';
      interactions: readonly InteractionRecord[];
      toolCalls: readonly ToolExecutionRecord[];
      remembered?: RememberedApprovals;
    };

/**
 * What a run knows of its thread's interactions and tool calls' write-ahead records: read
 * with the thread, then kept in step with the run's own writes (and with what it read again
 * of another process's answers), so its steps decide from them without a store read. Also
 * the thread's scope's remembered approvals when its copy came with them (a worker's job),
 * with those the run remembers itself.
 */
export class RunViews {
  private readonly interactions = new Map<string, InteractionRecord>();
  private readonly toolCalls = new Map<string, ToolExecutionRecord>();
  private known: RememberedApprovals | undefined;

  constructor(origin: RunOrigin = { kind: 'new' }) {
    if (origin.kind === 'new') return;
    for (const interaction of origin.interactions) this.interactions.set(interaction.interactionId, interaction);
    for (const call of origin.toolCalls) this.toolCalls.set(call.toolCallId, call);
    this.known = origin.remembered;
  }

  /** The scope's remembered approvals as the run knows them, if its thread came with them. */
  get remembered(): RememberedApprovals | undefined {
    return this.known;
  }

  interaction(interactionId: string): InteractionRecord | undefined {
    return this.interactions.get(interactionId);
  }

  /** An interaction as read again from the store (answered or failed by another process). */
  learn(interaction: InteractionRecord): void {
    this.interactions.set(interaction.interactionId, interaction);
  }

  toolCall(toolCallId: string): ToolExecutionRecord | undefined {
    return this.toolCalls.get(toolCallId);
  }

  /** Keeps the run's views of its interactions, tool calls and remembered approvals in step with its own writes. */
  see(effects: Effects): void {
    for (const { key, expiresAt, scope } of effects.remember ?? [])
      if (this.known !== undefined && scope === this.known.scope)
        this.known = { scope, entries: { ...this.known.entries, [key]: expiresAt } };
    for (const change of effects.interactions ?? []) {
      if (change.kind === 'open') {
        this.interactions.set(change.interaction.interactionId, change.interaction);
        continue;
      }
      const known = this.interactions.get(change.interactionId);
      if (known === undefined) continue;
      if (change.kind === 'answer')
        this.interactions.set(change.interactionId, { ...known, status: 'responded', response: change.response });
      else if (change.kind === 'consume' && known.status === 'responded')
        this.interactions.set(change.interactionId, { ...known, status: 'processed' });
      else if (change.kind === 'fail' && known.status === 'pending')
        this.interactions.set(change.interactionId, {
          ...known,
          status: 'failed',
          failureReason: change.reason,
          failureMessage: change.message,
        });
      else if (change.kind === 'approve-partially' || change.kind === 'escalate') {
        // The last approval of a call that needs several (F51), folded into this run's first commit.
        const applied = applyQuorumChange(known, change);
        if (typeof applied === 'object' && 'next' in applied) this.interactions.set(change.interactionId, applied.next);
      }
    }
    for (const change of effects.toolCalls ?? []) {
      const id = change.kind === 'start' ? change.call.toolCallId : change.toolCallId;
      const known = this.toolCalls.get(id);
      if (change.kind === 'start')
        this.toolCalls.set(id, { ...(known ?? change.call), status: 'started', updatedAt: change.at });
      else if (known !== undefined && change.kind === 'finish' && known.status !== 'finished')
        this.toolCalls.set(id, { ...known, status: 'finished', outcome: change.outcome, updatedAt: change.at });
      else if (known !== undefined && change.kind === 'status')
        this.toolCalls.set(id, { ...known, status: change.to, updatedAt: change.at });
    }
  }
}
