import { randomUUID } from 'node:crypto';
import { InterlockError, type AuditEntry, type Interlock, type ThreadRecord } from '@interlock/core';
import type {
  InterlockEvent,
  IUserInteractionHandler,
  Subscribable,
  UserInteractionContext,
  UserInteractionHandlerResult,
  UserInteractionRequest,
} from '@interlock/sdk-types';
import { askWhich, isApproval, lastApproval, numberApprovals } from './approval-choice.js';
import { parseApprovalReply, type ParsedApprovalReply } from './approval-reply.js';
import { createChatMemory, type ChatMemory } from './chat-memory.js';
import { approvalEntryId, approvalKey, buildTranscript, summariseArguments, type DeliveredMessage } from './chat-transcript.js';
import type { ChatChannelOptions, ChatEntry, ChatNoticeReason, ReceiveResult } from './chat-types.js';
import { Updates } from './chat-updates.js';
import { KeyedLock } from './keyed-lock.js';

/** The chat's thread and what waits in it, read from the store. */
interface ChatState {
  thread: ThreadRecord;
  pending: UserInteractionRequest[];
  approvals: UserInteractionRequest[];
  audit: AuditEntry[];
  transcript: ChatEntry[];
}

/**
 * A chat channel (F16, F31, F32): a conversation with an agent thread in which tool
 * approvals appear as messages and are answered with a plain yes or no. A reply that
 * answers an approval is consumed when it arrives, before the agent's queue: it resolves
 * the approval through `interlock.respond` and never reaches the agent.
 *
 * The transcript is derived from the store (the thread's conversation, its pending
 * interactions, its audit trail), so approvals survive a restart; notices and messages
 * queued for a busy agent live in this process only (see README.md).
 *
 * @example
 * const chat = new ChatChannel({ interlock, workflow: 'chat-agent' });
 * interlock.setHandler('chat', chat.handler);
 * const { chatId } = await chat.open('alice');
 * await chat.receive(chatId, 'write the notes', 'alice');   // the agent asks to write NOTES.md
 * await chat.receive(chatId, 'yes', 'alice');               // { kind: 'approval', decision: 'approve', … }
 */

/** What the chat says to a reply that is not an exact decision (issue 14). */
const HOW_TO_DECIDE = 'Nothing was decided: reply exactly "yes" or "no" (or 是 / 否), with the call\'s number when several wait ("yes 2").';

export class ChatChannel {
  /** The channel's side of every interaction of its threads: register it with `interlock.setHandler(channel, handler)`. */
  readonly handler: IUserInteractionHandler;
  /** Emits a chat's id whenever its transcript may have changed. Subscribe, then read `transcript(chatId)`. */
  readonly updates$: Subscribable<{ chatId: string }>;
  /** The channel the chat threads run on. */
  readonly channel: string;

  private readonly interlock: Interlock;
  private readonly workflow: string;

  /** The id of the chat workflow this channel starts. */
  get workflowId(): string {
    return this.workflow;
  }
  private readonly canApprove: (author: string, workflowId: string) => boolean;
  private readonly mayAnswer: (author: string, request: UserInteractionRequest) => string | undefined;
  private readonly now: () => number;
  private readonly updates = new Updates<{ chatId: string }>();
  private readonly memories = new Map<string, ChatMemory>();
  private readonly chatOfThread = new Map<string, string>();
  private readonly lock = new KeyedLock();
  private readonly subscription: { unsubscribe(): void };
  private nextNote = 0;

  constructor(options: ChatChannelOptions) {
    this.interlock = options.interlock;
    this.workflow = options.workflow;
    this.channel = options.channel ?? 'chat';
    this.canApprove = options.canApprove ?? (() => true);
    this.mayAnswer = options.mayAnswer ?? (() => undefined);
    this.now = options.now ?? Date.now;
    this.updates$ = this.updates;
    this.handler = { handle: (request, context) => this.handle(request, context) };
    this.subscription = this.interlock.events$.subscribe({ next: (event) => this.observe(event) });
  }

  /** Starts a chat: a thread of the chat workflow on this channel, with `session.chatId`. */
  async open(author: string): Promise<{ chatId: string; threadId: string }> {
    const chatId = randomUUID();
    const threadId = randomUUID();
    this.memoryFor(chatId, threadId);
    await this.interlock.start(this.workflow, { channel: this.channel, threadId, session: { chatId, sessionId: chatId, requestedBy: author } });
    this.note(this.memoryFor(chatId, threadId), undefined, { role: 'notice', text: `${author} opened this chat.` });
    this.updates.emit({ chatId });
    return { chatId, threadId };
  }

  /**
   * Takes a message as it arrives. A clear yes or no while approvals wait in this chat
   * answers them (never reaching the agent); an unclear one gets a question back; anything
   * else goes to the agent: at once if it waits for a message, else queued until it asks.
   *
   * @throws InterlockError THREAD_NOT_FOUND for an unknown chat.
   */
  async receive(chatId: string, text: string, author: string): Promise<ReceiveResult> {
    const memory = await this.memoryOf(chatId);
    await this.recover(memory);
    try {
      return await this.lock.run(chatId, () => this.take(memory, text, author));
    } finally {
      this.updates.emit({ chatId });
    }
  }

  /** The chat as people see it, oldest first. @throws InterlockError THREAD_NOT_FOUND for an unknown chat. */
  async transcript(chatId: string): Promise<ChatEntry[]> {
    return (await this.load(await this.memoryOf(chatId))).transcript;
  }

  /**
   * A change to a chat's thread made by another process (a worker of a deployment, where
   * this process runs no thread, so the channel's handler is never asked): announces it,
   * and gives the oldest queued message to the agent once it waits for one.
   */
  async heard(threadId: string): Promise<void> {
    const chatId = this.chatOfThread.get(threadId);
    const memory = chatId === undefined ? undefined : this.memories.get(chatId);
    if (chatId === undefined || memory === undefined) return;
    await this.lock.run(chatId, async () => {
      const head = memory.queue[0];
      if (head === undefined) return;
      const asking = (await this.load(memory)).pending.find((request) => request.operationType === 'ADD_MESSAGE' && !memory.claimed.has(request.interactionId));
      if (asking === undefined) return;
      memory.queue.shift();
      if (!(await this.sendToAgent(memory, asking, head))) memory.queue.unshift(head);
    });
    this.updates.emit({ chatId });
  }

  /** Stops listening to the instance's events and completes `updates$`. The threads stay in the store. */
  close(): void {
    this.subscription.unsubscribe();
    this.updates.complete();
  }

  private async take(memory: ChatMemory, text: string, author: string): Promise<ReceiveResult> {
    const state = await this.load(memory);
    const after = this.anchorOf(state.transcript);
    const said = this.note(memory, after, { role: 'user', text, author, consumed: true });
    const notice = (reason: ChatNoticeReason, message: string): ReceiveResult => {
      this.note(memory, said.id, { role: 'notice', text: message });
      return { kind: 'notice', reason, text: message };
    };
    if (!['running', 'waiting'].includes(state.thread.status)) {
      return notice('chat_ended', `This chat has ended (${state.thread.status}); open a new one.`);
    }
    const reply = parseApprovalReply(text);
    if (state.approvals.length > 0 && (reply.kind === 'approve' || reply.kind === 'reject')) {
      if (!this.canApprove(author, state.thread.workflowId)) {
        return notice('not_allowed', `${author} may not answer tool approvals in this chat; nothing was decided.`);
      }
      return this.answer(memory, state, reply, author, said.id, notice);
    }
    if (state.approvals.length > 0 && reply.kind === 'ambiguous') {
      // Only an exact decision counts ("ok", "yes?", "👍" do not): asked again, nothing decided (issue 14).
      const question = `${HOW_TO_DECIDE} ${this.askWhich(memory, state.approvals)}`;
      this.note(memory, said.id, { role: 'notice', text: question });
      return { kind: 'clarify', text: question };
    }
    const late = reply.kind === 'approve' || reply.kind === 'reject' ? lastApproval(state.transcript) : undefined;
    if (late && (reply.kind === 'approve' || reply.kind === 'reject')) {
      if (!this.canApprove(author, state.thread.workflowId)) {
        return notice('not_allowed', `${author} may not answer tool approvals in this chat; nothing was decided.`);
      }
      return this.answerLate(memory, late, reply.kind, author, said.id, notice);
    }
    this.forget(memory, said.id);
    const delivered = await this.deliver(memory, state, { text, author, at: said.at });
    // An ordinary message while a call waits goes to the agent, and the sender is told it decided nothing.
    if (state.approvals.length > 0) this.note(memory, after, { role: 'notice', text: `Your message is kept for the agent. ${HOW_TO_DECIDE}` });
    return delivered;
  }

  /** Resolves the approvals a clear yes or no names, or asks which when it names none of several. */
  private async answer(
    memory: ChatMemory,
    state: ChatState,
    reply: Extract<ParsedApprovalReply, { kind: 'approve' | 'reject' }>,
    author: string,
    after: string,
    notice: (reason: ChatNoticeReason, message: string) => ReceiveResult,
  ): Promise<ReceiveResult> {
    const pendingIds = state.approvals.map((request) => request.interactionId);
    const listed = this.numberingOf(memory, state.approvals);
    const clarify = (prefix: string): ReceiveResult => {
      const question = `${prefix}${this.askWhich(memory, state.approvals)}`;
      this.note(memory, after, { role: 'notice', text: question });
      return { kind: 'clarify', text: question };
    };
    let targets: string[];
    if (reply.targets.kind === 'all') targets = pendingIds;
    else if (reply.targets.kind === 'numbered') {
      const named = reply.targets.numbers.map((number) => listed[number - 1]);
      const missing = reply.targets.numbers.filter((_, index) => named[index] === undefined);
      if (missing.length > 0) return clarify(`There is no approval number ${missing.join(', ')}. `);
      targets = named.filter((id) => id !== undefined);
    } else if (state.approvals.length === 1) targets = pendingIds;
    else return clarify('');
    // The reply is shown after the approval it answers, wherever that line moves.
    const answered = targets.map((id) => state.approvals.find((request) => request.interactionId === id)?.toolApproval).findLast(Boolean);
    if (answered) this.reanchor(memory, after, approvalEntryId(approvalKey(answered.toolCallId, answered.stage)));
    const approved = reply.kind === 'approve';
    const resolved: string[] = [];
    let refusal: ReceiveResult | undefined;
    for (const interactionId of targets) {
      const request = state.approvals.find((candidate) => candidate.interactionId === interactionId);
      const entry = state.transcript.find((candidate) => candidate.interactionId === interactionId && candidate.role === 'approval');
      const refused = request === undefined ? undefined : this.mayAnswer(author, request);
      if (refused !== undefined) {
        await this.interlock.recordAttempt({ interactionId, responder: author, result: 'refused', reason: `${reply.kind} in the chat: ${refused}` });
        refusal ??= notice('not_allowed', `${refused}; nothing was decided.`);
        continue;
      }
      const outcome = request
        ? (await this.interlock.respond(interactionId, { approved }, { responder: author })).status
        : entry?.approval?.status === 'expired' ? 'expired' : 'already_answered';
      if (outcome === 'accepted' && request?.toolApproval) {
        const key = approvalKey(request.toolApproval.toolCallId, request.toolApproval.stage);
        memory.seen.set(key, { request, decision: { approved, answeredBy: author, at: this.isoNow() } });
        resolved.push(interactionId);
        continue;
      }
      const call = describeCall(request?.toolApproval?.toolName ?? entry?.approval?.toolName, request?.toolApproval?.toolParameters ?? entry?.approval?.arguments);
      const text = outcome === 'expired' ? `Too late: the approval of ${call} has expired, so it did not run.` : `The approval of ${call} was already answered.`;
      if (request !== undefined) await this.interlock.recordAttempt({ interactionId, responder: author, result: 'lost', reason: `${reply.kind} in the chat: ${text}` });
      refusal ??= notice(outcome === 'expired' ? 'expired' : 'already_answered', text);
    }
    const [first] = resolved;
    if (first === undefined) return refusal ?? notice('already_answered', 'That approval was already answered.');
    return { kind: 'approval', interactionId: first, decision: reply.kind, interactionIds: resolved };
  }

  /**
   * A yes or no while no approval waits, for the approval it most likely meant (see
   * {@link lastApproval}): "expired", "cancelled" or "already answered" — or, if the store has
   * not settled it yet (asked here, answered nowhere), the answer after all.
   */
  private async answerLate(
    memory: ChatMemory,
    late: ChatEntry,
    decision: 'approve' | 'reject',
    author: string,
    said: string,
    notice: (reason: ChatNoticeReason, message: string) => ReceiveResult,
  ): Promise<ReceiveResult> {
    const call = describeCall(late.approval?.toolName, late.approval?.arguments);
    const expired = () => notice('expired', `Too late: the approval of ${call} has expired, so it did not run. Ask the agent again if you still want it.`);
    const status = late.approval?.status;
    if (status === 'pending' && late.interactionId !== undefined) {
      const outcome = (await this.interlock.respond(late.interactionId, { approved: decision === 'approve' }, { responder: author })).status;
      if (outcome === 'accepted') {
        this.reanchor(memory, said, late.id);
        const seen = [...memory.seen.values()].find((candidate) => candidate.request.interactionId === late.interactionId);
        if (seen) seen.decision = { approved: decision === 'approve', answeredBy: author, at: this.isoNow() };
        return { kind: 'approval', interactionId: late.interactionId, decision, interactionIds: [late.interactionId] };
      }
      return outcome === 'expired' ? expired() : notice('already_answered', `The approval of ${call} was already answered.`);
    }
    if (status === 'expired') return expired();
    if (status === 'cancelled') return notice('cancelled', `The approval of ${call} was cancelled, so it did not run.`);
    const by = late.approval?.answeredBy === undefined ? '' : ` by ${late.approval.answeredBy}`;
    return notice('already_answered', `The approval of ${call} was already answered (${status ?? 'answered'}${by}).`);
  }

  /**
   * A thread that waits only on interactions that are no longer pending (their deadline
   * passed while no process ran, and `createInterlock` timed them out) goes on: the agent is
   * told, and the transcript shows them expired before the message is taken.
   */
  private async recover(memory: ChatMemory): Promise<void> {
    const [threads, pending] = await Promise.all([this.interlock.threads(), this.interlock.pending()]);
    const thread = threads.find((candidate) => candidate.threadId === memory.threadId);
    const waiting = new Set(pending.map((request) => request.interactionId));
    if (thread?.status !== 'waiting' || thread.pendingInteractionIds.length === 0) return;
    if (thread.pendingInteractionIds.some((id) => waiting.has(id))) return;
    try {
      await (await this.interlock.resume(thread.threadId)).done();
    } catch (error) {
      if (!InterlockError.is(error) || error.code !== 'THREAD_BUSY') throw error;
    }
  }

  /** Gives a message to the agent if it waits for one (older queued messages first), else queues it. */
  private async deliver(memory: ChatMemory, state: ChatState, message: DeliveredMessage): Promise<ReceiveResult> {
    const asking = state.pending.find((request) => request.operationType === 'ADD_MESSAGE' && !memory.claimed.has(request.interactionId));
    const queued = { id: this.noteId(), role: 'user' as const, text: message.text, at: message.at, author: message.author, queued: true };
    if (!asking) {
      memory.queue.push(queued);
      return { kind: 'agent', queued: true };
    }
    const head = memory.queue.shift();
    if (head) memory.queue.push(queued);
    const sent = await this.sendToAgent(memory, asking, head ?? message);
    if (!sent) {
      if (head) memory.queue.unshift(head);
      else memory.queue.push(queued);
    }
    return { kind: 'agent', queued: head !== undefined || !sent };
  }

  private async sendToAgent(memory: ChatMemory, asking: UserInteractionRequest, message: DeliveredMessage): Promise<boolean> {
    memory.claimed.add(asking.interactionId);
    memory.delivered.push({ text: message.text, author: message.author, at: message.at });
    const result = await this.interlock.respond(asking.interactionId, message.text, { responder: message.author });
    if (result.status === 'accepted') return true;
    memory.delivered.pop();
    return false;
  }

  /** The engine asks: a tool approval waits in the chat; a request for the next message takes the oldest queued one. */
  private async handle(request: UserInteractionRequest, context: UserInteractionContext): Promise<UserInteractionHandlerResult> {
    const { chatId } = request.session;
    if (chatId === undefined) return { outcome: 'deferred' };
    const memory = this.memoryFor(chatId, context.threadId);
    if (request.operationType !== 'ADD_MESSAGE') return { outcome: 'deferred' };
    return this.lock.run(chatId, async (): Promise<UserInteractionHandlerResult> => {
      if (memory.claimed.has(request.interactionId) || context.signal.aborted) return { outcome: 'deferred' };
      const next = memory.queue.shift();
      if (!next) return { outcome: 'deferred' };
      memory.claimed.add(request.interactionId);
      memory.delivered.push({ text: next.text, author: next.author, at: next.at });
      this.updates.emit({ chatId });
      return { outcome: 'responded', input: next.text, responder: next.author };
    });
  }

  /** Keeps the seen approvals current and announces changes. */
  private observe(event: InterlockEvent): void {
    if (event.type === 'LLM_TEXT_DELTA') return;
    if (event.type === 'USER_INTERACTION_REQUESTED' && event.request.session.channel === this.channel && event.request.session.chatId !== undefined) {
      const memory = this.memoryFor(event.request.session.chatId, event.threadId);
      const details = event.request.toolApproval;
      if (details) memory.seen.set(approvalKey(details.toolCallId, details.stage), { request: event.request });
    }
    const chatId = this.chatOfThread.get(event.threadId);
    if (chatId === undefined) return;
    if (event.type === 'USER_INTERACTION_RESPONDED' && event.operationType === 'TOOL_APPROVAL') {
      const memory = this.memories.get(chatId);
      const seen = [...(memory?.seen.values() ?? [])].find((candidate) => candidate.request.interactionId === event.interactionId);
      if (seen && !seen.decision) {
        seen.decision = { approved: isApproval(event.input), at: event.timestamp, ...(event.responder === undefined ? {} : { answeredBy: event.responder }) };
      }
    }
    this.updates.emit({ chatId });
  }

  private async load(memory: ChatMemory): Promise<ChatState> {
    const [threads, allPending, audit] = await Promise.all([
      this.interlock.threads(),
      this.interlock.pending(),
      this.interlock.audit({ threadId: memory.threadId }),
    ]);
    const thread = threads.find((candidate) => candidate.threadId === memory.threadId);
    if (!thread) throw new InterlockError('THREAD_NOT_FOUND', `the thread ${memory.threadId} of chat ${memory.chatId} is not in the store`);
    const pending = allPending.filter((request) => request.threadId === memory.threadId);
    const approvals = pending.filter((request) => request.operationType === 'TOOL_APPROVAL');
    const transcript = buildTranscript({
      thread,
      pending: approvals,
      audit,
      seen: memory.seen,
      delivered: memory.delivered,
      notes: memory.notes,
      queued: memory.queue,
      firstSeen: (id) => {
        const known = memory.firstSeen.get(id);
        if (known !== undefined) return known;
        const at = this.isoNow();
        memory.firstSeen.set(id, at);
        return at;
      },
    });
    return { thread, pending, approvals, audit, transcript };
  }

  /** The chat's memory, found through the store (`session.chatId`) when this process has none yet (after a restart). */
  private async memoryOf(chatId: string): Promise<ChatMemory> {
    const known = this.memories.get(chatId);
    if (known) return known;
    const threads = await this.interlock.threads();
    const thread = threads.find((candidate) => candidate.session.chatId === chatId && candidate.channel === this.channel && candidate.workflowId === this.workflow);
    if (!thread) throw new InterlockError('THREAD_NOT_FOUND', `no chat ${chatId}: open one with chat.open(author)`);
    return this.memoryFor(chatId, thread.threadId);
  }

  private memoryFor(chatId: string, threadId: string): ChatMemory {
    const known = this.memories.get(chatId);
    if (known) return known;
    const memory = createChatMemory(chatId, threadId);
    this.memories.set(chatId, memory);
    this.chatOfThread.set(threadId, chatId);
    return memory;
  }

  private numberingOf(memory: ChatMemory, approvals: readonly UserInteractionRequest[]): string[] {
    memory.numbering = numberApprovals(approvals, [...memory.seen.values()].map((seen) => seen.request), memory.numbering);
    return memory.numbering;
  }

  private askWhich(memory: ChatMemory, approvals: readonly UserInteractionRequest[]): string {
    return askWhich(approvals, this.numberingOf(memory, approvals));
  }

  private note(memory: ChatMemory, after: string | undefined, entry: Omit<ChatEntry, 'id' | 'at'>): ChatEntry {
    const full: ChatEntry = { id: this.noteId(), at: this.isoNow(), ...entry };
    memory.notes.push({ entry: full, after });
    return full;
  }

  private reanchor(memory: ChatMemory, id: string, after: string): void {
    const note = memory.notes.find((candidate) => candidate.entry.id === id);
    if (note) note.after = after;
  }

  /** Drops a note again: a message that goes to the agent is shown from the queue or the conversation instead. */
  private forget(memory: ChatMemory, id: string): void {
    memory.notes = memory.notes.filter((note) => note.entry.id !== id);
  }

  /** The line a new note follows: the last one that is not a queued message. */
  private anchorOf(transcript: readonly ChatEntry[]): string | undefined {
    return transcript.findLast((entry) => entry.queued !== true)?.id;
  }

  private noteId(): string {
    this.nextNote += 1;
    return `note-${this.nextNote}`;
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }
}

/** "write_file with {…}", or "that call" when nothing is known of it. */
function describeCall(toolName: string | undefined, parameters: Record<string, unknown> | undefined): string {
  return toolName === undefined ? 'that call' : `${toolName} with ${summariseArguments(parameters ?? {})}`;
}
