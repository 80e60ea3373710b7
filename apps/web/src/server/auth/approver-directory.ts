import { watchFile, unwatchFile } from 'node:fs';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import {
  dutiesSeparated,
  findApprover,
  levelOf,
  mayApprove,
  type Approver,
  type DutyLevel,
  type Principal,
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
  /**
   * The names the project file's `[chat.*] approvers` maps give platform users (issue 37):
   * each is an approver (without groups) for the chat, as docs/chat.md shows, so the file
   * need not list them again. Per-workflow lists and separation of duties still apply.
   */
  chatApprovers?: readonly string[];
}

/**
 * The approvers as they are now. Built from a fixed set, or {@link ApproverDirectory.watch}ing
 * the approvers file: an edit takes effect within a second, everywhere it is asked — a removed
 * approver's token, sessions and pending decisions stop working without a restart.
 */
export class ApproverDirectory {
  private stopWatching: (() => void) | undefined;
  /** People the identity provider vouched for, with the groups it said, until their session ends. */
  private readonly people = new Map<string, { groups: readonly string[]; until: number }>();
  /** The time, for how long a person vouched for is remembered. */
  now: () => number = Date.now;

  constructor(private current: ApproverSet) {}

  /** A directory of `set`, or `set` itself when it already is one. */
  static of(set: ApproverDirectory | Partial<ApproverSet> | undefined): ApproverDirectory {
    if (set instanceof ApproverDirectory) return set;
    return new ApproverDirectory({
      approvers: set?.approvers ?? [],
      chatApprovers: set?.chatApprovers ?? [],
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
      chatApprovers: [...(base.chatApprovers ?? []), ...(set.chatApprovers ?? [])],
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
      chatApprovers: set.chatApprovers ?? [],
      workflowApprovers: set.workflowApprovers,
      separationOfDuties: set.separationOfDuties ?? {},
    };
  }

  /** The approver a token belongs to now (compared in constant time), with the groups the file gives them. */
  find(token: string): Principal | undefined {
    const approver = findApprover(this.current.approvers, token);
    return approver === undefined ? undefined : { name: approver.name, groups: approver.groups ?? [] };
  }

  /** Whether `name` is still an approver of the approvers file (a machine, or a person with a token). */
  has(name: string): boolean {
    return this.current.approvers.some((approver) => approver.name === name);
  }

  /** Notes a person signed in through the identity provider, with their groups now, until `until` (their session's end). */
  vouch(principal: Principal, until: number): void {
    this.people.set(principal.name, { groups: principal.groups, until });
  }

  /** Forgets a person whose session ended (signed out, refused by the identity provider). */
  forget(name: string): void {
    this.people.delete(name);
  }

  /**
   * Who `name` is now, for a surface that knows only the name (a chat message): an approver of
   * the file, a name the project file's chat platforms map a user to, or a person signed in
   * through the identity provider (with the groups last read).
   */
  principalOf(name: string): Principal | undefined {
    const approver = this.current.approvers.find((candidate) => candidate.name === name);
    if (approver !== undefined) return { name, groups: approver.groups ?? [] };
    if (this.current.chatApprovers?.includes(name) === true) return { name, groups: [] };
    const person = this.people.get(name);
    if (person === undefined || person.until <= this.now()) return undefined;
    return { name, groups: person.groups };
  }

  /**
   * Whether `principal` may answer `level` requests of `workflowId` now — or, without a level,
   * see its threads, start and cancel them. The caller vouches that `principal` is current.
   */
  mayApprove(workflowId: string, principal: Principal, level?: DutyLevel): boolean {
    return mayApprove(this.current.workflowApprovers, workflowId, principal, level);
  }

  /** Whether requests of `level` in `workflowId` must be answered by someone other than who started the thread. */
  separatesDuties(workflowId: string, level: DutyLevel): boolean {
    return dutiesSeparated(this.current.separationOfDuties ?? {}, workflowId, level);
  }

  close(): void {
    this.stopWatching?.();
  }
}

/** A chat's checks of who may answer: the approver lists (per level), and separation of duties from a directory. */
export function chatChecks(source: WorkflowApprovers | ApproverDirectory | undefined): {
  canApprove: (author: string, workflowId: string) => boolean;
  mayAnswer: (author: string, request: UserInteractionRequest, askedBy: string | undefined) => string | undefined;
} {
  return { canApprove: approvalCheck(source), mayAnswer: answerCheck(source) };
}

/** What to call the requests of a level in a reason. */
export function levelRequests(level: DutyLevel): string {
  return level === 'QUESTION' ? 'questions' : `${level}-risk calls`;
}

/**
 * The chat's `mayAnswer`: the list of the request's level, and separation of duties, as the
 * directory says now. Duties bind the person who opened the chat and the one who asked for
 * the call (`askedBy`: in a shared channel, whoever wrote the message that led to it).
 */
function answerCheck(
  source: WorkflowApprovers | ApproverDirectory | undefined,
): (author: string, request: UserInteractionRequest, askedBy: string | undefined) => string | undefined {
  if (!(source instanceof ApproverDirectory)) {
    const fixed = source ?? {};
    return (author, request) =>
      mayApprove(fixed, request.workflowId, { name: author, groups: [] }, levelOf(request))
        ? undefined
        : `${author} is not on the approver list for ${levelRequests(levelOf(request))} of this workflow`;
  }
  return (author, request, askedBy) => {
    const level = levelOf(request);
    const principal = source.principalOf(author);
    if (principal === undefined || !source.mayApprove(request.workflowId, principal, level))
      return `${author} is not on the approver list for ${levelRequests(level)} of this workflow`;
    const asked = askedBy !== undefined && samePerson(askedBy, author);
    const opened = request.session.requestedBy !== undefined && samePerson(request.session.requestedBy, author);
    if ((!asked && !opened) || !source.separatesDuties(request.workflowId, level)) return undefined;
    return asked
      ? `${author} asked for this call, so another approver must answer it (${levelRequests(level)} are separated from their requester)`
      : `${author} opened this chat, so another approver must answer its ${levelRequests(level)}`;
  };
}

/** `canApprove(author, workflowId)` for a chat: from a live directory, or a fixed list. */
function approvalCheck(
  source: WorkflowApprovers | ApproverDirectory | undefined,
): (author: string, workflowId: string) => boolean {
  if (source instanceof ApproverDirectory)
    return (author, workflowId) => {
      const principal = source.principalOf(author);
      return principal !== undefined && source.mayApprove(workflowId, principal);
    };
  const fixed = source ?? {};
  return (author, workflowId) => mayApprove(fixed, workflowId, { name: author, groups: [] });
}

/** Whether a responder (`alice`, or as a surface names her, `web:alice`) is `name`. */
export function samePerson(responder: string, name: string): boolean {
  return responder === name || responder === `web:${name}`;
}
