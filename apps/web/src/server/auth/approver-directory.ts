import { watchFile, unwatchFile } from 'node:fs';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import {
  dutiesSeparated,
  findApprover,
  mayApprove,
  type Approver,
  type DutyLevel,
  type SeparationOfDuties,
  type WorkflowApprovers,
} from './approvers.js';
import { loadApprovers } from './approvers-file.js';

/** Who may sign in, and who may answer which workflow. */
export interface ApproverSet {
  approvers: readonly Approver[];
  workflowApprovers: WorkflowApprovers;
  /** Default none. */
  separationOfDuties?: SeparationOfDuties;
}

/**
 * The approvers as they are now. Built from a fixed set, or {@link ApproverDirectory.watch}ing
 * the approvers file: an edit takes effect within a second, everywhere it is asked — a removed
 * approver's token, sessions and pending decisions stop working without a restart.
 */
export class ApproverDirectory {
  private stopWatching: (() => void) | undefined;

  constructor(private current: ApproverSet) {}

  /** A directory of `set`, or `set` itself when it already is one. */
  static of(set: ApproverDirectory | Partial<ApproverSet> | undefined): ApproverDirectory {
    if (set instanceof ApproverDirectory) return set;
    return new ApproverDirectory({
      approvers: set?.approvers ?? [],
      workflowApprovers: set?.workflowApprovers ?? {},
      separationOfDuties: set?.separationOfDuties ?? {},
    });
  }

  /**
   * Re-reads `path` whenever it changes (polled every `intervalMs`). A file that no longer
   * reads keeps the last good set and is reported through `warn`: a typo never opens the inbox.
   * `base` (the project file's `[approvers]`) lies under the file's own lists.
   */
  static watch(
    path: string,
    initial: ApproverSet,
    warn: (message: string) => void,
    intervalMs = 500,
    base: Partial<ApproverSet> = {},
  ): ApproverDirectory {
    const withBase = (set: ApproverSet): ApproverSet => ({
      approvers: set.approvers,
      // The project file's lists, under the approvers file's own (which win per workflow).
      workflowApprovers: { ...base.workflowApprovers, ...set.workflowApprovers },
      separationOfDuties: { ...base.separationOfDuties, ...set.separationOfDuties },
    });
    const directory = new ApproverDirectory(withBase(initial));
    const listener = () => {
      loadApprovers(path, { create: false }).then(
        (config) => directory.replace(withBase(config)),
        (error: unknown) =>
          warn(
            `${path} was changed but could not be read, so the approvers stay as they were: ${error instanceof Error ? error.message : String(error)}`,
          ),
      );
    };
    watchFile(path, { interval: intervalMs, persistent: false }, listener);
    directory.stopWatching = () => unwatchFile(path, listener);
    return directory;
  }

  replace(set: ApproverSet): void {
    this.current = {
      approvers: set.approvers,
      workflowApprovers: set.workflowApprovers,
      separationOfDuties: set.separationOfDuties ?? {},
    };
  }

  /** The approver a token belongs to now (compared in constant time). */
  find(token: string): Approver | undefined {
    return findApprover(this.current.approvers, token);
  }

  /** Whether `name` is still an approver. */
  has(name: string): boolean {
    return this.current.approvers.some((approver) => approver.name === name);
  }

  /** Whether `name` may see, answer, start and cancel threads of `workflowId` now. */
  mayApprove(workflowId: string, name: string): boolean {
    return this.has(name) && mayApprove(this.current.workflowApprovers, workflowId, name);
  }

  /** Whether requests of `level` in `workflowId` must be answered by someone other than who started the thread. */
  separatesDuties(workflowId: string, level: DutyLevel): boolean {
    return dutiesSeparated(this.current.separationOfDuties ?? {}, workflowId, level);
  }

  close(): void {
    this.stopWatching?.();
  }
}

/** A chat's checks of who may answer: the approver lists, and separation of duties from a directory. */
export function chatChecks(source: WorkflowApprovers | ApproverDirectory | undefined): {
  canApprove: (author: string, workflowId: string) => boolean;
  mayAnswer?: (author: string, request: UserInteractionRequest) => string | undefined;
} {
  const duties = dutyCheck(source);
  return { canApprove: approvalCheck(source), ...(duties === undefined ? {} : { mayAnswer: duties }) };
}

/** The chat's `mayAnswer`: separation of duties, as the directory says now (none for a fixed list). */
function dutyCheck(
  source: WorkflowApprovers | ApproverDirectory | undefined,
): ((author: string, request: UserInteractionRequest) => string | undefined) | undefined {
  if (!(source instanceof ApproverDirectory)) return undefined;
  return (author, request) => {
    const level = request.toolApproval?.riskLevel ?? 'QUESTION';
    if (request.session.requestedBy !== author || !source.separatesDuties(request.workflowId, level)) return undefined;
    return `${author} opened this chat, so another approver must answer its ${level === 'QUESTION' ? 'questions' : `${level}-risk calls`}`;
  };
}

/** `canApprove(author, workflowId)` for a chat: from a live directory, or a fixed list. */
function approvalCheck(
  source: WorkflowApprovers | ApproverDirectory | undefined,
): (author: string, workflowId: string) => boolean {
  if (source instanceof ApproverDirectory) return (author, workflowId) => source.mayApprove(workflowId, author);
  const fixed = source ?? {};
  return (author, workflowId) => mayApprove(fixed, workflowId, author);
}
