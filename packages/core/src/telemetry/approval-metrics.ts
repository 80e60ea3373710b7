import { metrics, type Attributes, type ObservableCallback } from '@opentelemetry/api';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';

/** The metrics' meter (inert until the application installs an SDK). */
const meter = () => metrics.getMeter('@interlock/core');

/**
 * The metrics of approvals and tool runs (F59): approvals requested, answered and timed out
 * by decision and risk, how long people took (a histogram, seconds), how many wait now (read
 * from the store at each export), tool calls by outcome. Attributes are names and levels,
 * never arguments.
 */
export class ApprovalMetrics {
  private readonly requested = meter().createCounter('interlock.approvals.requested', {
    description: 'Tool calls a person was asked to approve',
  });
  private readonly answered = meter().createCounter('interlock.approvals.answered', {
    description: 'Approvals answered, by decision',
  });
  private readonly timedOut = meter().createCounter('interlock.approvals.timed_out', {
    description: 'Approvals nobody answered before their deadline',
  });
  private readonly escalated = meter().createCounter('interlock.approvals.escalated', {
    description: 'Approvals offered to their escalation approvers',
  });
  private readonly waits = meter().createHistogram('interlock.approval.wait', {
    description: 'How long an approval waited for its answer',
    unit: 's',
  });
  private readonly toolRuns = meter().createCounter('interlock.tool.calls', {
    description: 'Tool calls, by outcome',
  });
  private readonly pending = meter().createObservableGauge('interlock.approvals.pending', {
    description: 'Approvals waiting for an answer now, as stored',
  });
  private readonly observePending: ObservableCallback;

  constructor(store: ICheckpointStore) {
    this.observePending = async (result) => {
      const counts = new Map<string, number>();
      for (const interaction of await store.listInteractions({ status: 'pending' })) {
        const risk = interaction.request.toolApproval?.riskLevel;
        if (risk !== undefined) counts.set(risk, (counts.get(risk) ?? 0) + 1);
      }
      for (const risk of ['LOW', 'MEDIUM', 'HIGH']) result.observe(counts.get(risk) ?? 0, { 'interlock.risk': risk });
    };
    this.pending.addCallback(this.observePending);
  }

  approvalRequested(attributes: Attributes): void {
    this.requested.add(1, attributes);
  }

  approvalSettled(attributes: Attributes & { 'interlock.decision': string }, waitedSeconds: number | undefined): void {
    if (attributes['interlock.decision'] === 'timeout') this.timedOut.add(1, attributes);
    else this.answered.add(1, attributes);
    if (waitedSeconds !== undefined && waitedSeconds >= 0) this.waits.record(waitedSeconds, attributes);
  }

  approvalEscalated(attributes: Attributes): void {
    this.escalated.add(1, attributes);
  }

  toolCallEnded(attributes: Attributes): void {
    this.toolRuns.add(1, attributes);
  }

  /** Stops reading the store for the pending gauge (the store closes). */
  close(): void {
    this.pending.removeCallback(this.observePending);
  }
}
