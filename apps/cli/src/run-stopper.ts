import type { InterlockEvent, UserInteractionRequest } from '@interlock/sdk-types';

/**
 * Stops a run after Ctrl+C at a tool approval, but only once the engine has recorded that
 * call's rejection (its USER_INTERACTION_RESPONDED, or FAILED if the wait ended otherwise):
 * closing earlier would abandon the answer instead of giving it.
 *
 * @example
 * const stopper = new RunStopper();
 * stopper.onStop(() => void interlock.close().catch((error: unknown) => console.error(error)));
 * thread.events$.subscribe((event) => stopper.observe(event));
 * // in the handler's onApprovalInterrupted: stopper.stopAfterAnswer(request)
 */
export class RunStopper {
  private readonly waitingFor = new Set<string>();
  private stop: (() => void) | undefined;
  /** The tool of the first call rejected by Ctrl+C, for the closing message. */
  rejectedCall: string | undefined;
  /** True once the run was told to stop. */
  stopped = false;

  /** What stopping does (the CLI closes its Interlock: the thread stays resumable). */
  onStop(stop: () => void): void {
    this.stop = stop;
  }

  /** Ctrl+C rejected this approval: stop as soon as the rejection is recorded. */
  stopAfterAnswer(request: UserInteractionRequest): void {
    this.waitingFor.add(request.interactionId);
    this.rejectedCall ??= request.toolApproval?.toolName;
  }

  /** Feeds the thread's events, in order. */
  observe(event: InterlockEvent): void {
    if (event.type !== 'USER_INTERACTION_RESPONDED' && event.type !== 'USER_INTERACTION_FAILED') return;
    if (!this.waitingFor.has(event.interactionId) || this.stopped) return;
    this.stopped = true;
    this.stop?.();
  }
}
