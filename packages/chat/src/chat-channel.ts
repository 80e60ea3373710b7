import { randomUUID } from 'node:crypto';
import { InterlockError, type Interlock } from '@interlock/core';
import type {
  InterlockEvent,
  IUserInteractionHandler,
  Subscribable,
  UserInteractionContext,
  UserInteractionHandlerResult,
  UserInteractionRequest,
} from '@interlock/sdk-types';
import { isApproval } from './approval-choice.js';
import { ChatAnswers } from './chat-answers.js';
import { ChatDecisions, type ApprovalAction, type DecideResult } from './chat-decisions.js';
import { askingFor, ChatDelivery } from './chat-delivery.js';
import { createChatMemory, type ChatMemory } from './chat-memory.js';
import { anchorOf, ChatNotes } from './chat-notes.js';
import { findChatThread, readThreadWaits } from './chat-reads.js';
import { loadChatState, type ChatState } from './chat-state.js';
import { routeReply } from './chat-reply-router.js';
import { approvalKey } from './chat-transcript.js';
import type { ChatChannelOptions, ChatEntry, ReceiveResult } from './chat-types.js';
import { Updates } from './chat-updates.js';
import { KeyedLock } from './keyed-lock.js';

/**
 * A chat channel (F16, F31, F32): a conversation with an agent thread in which tool
 * approvals appear as messages and are answered with a plain yes or no. A reply that
 * answers an approval is consumed when it arrives, before the agent's queue: it resolves
 * the approval through `interlock.respond` and never reaches the agent.
 *
 * The transcript is derived from the store (the thread's conversation, its pending
 * interactions, its audit trail), so approvals survive a restart; notices and messages
 * queued for a busy agent live in this process only (see README.md). A message reads the
 * chat's own thread and interactions, never the other threads (issue 15); what it does is
 * decided by {@link routeReply}, and this class carries it out.
 *
 * @example
 * const chat = new ChatChannel({ interlock, workflow: 'chat-agent' });
 * interlock.setHandler('chat', chat.handler);
 * const { chatId } = await chat.open('alice');
 * await chat.receive(chatId, 'write the notes', 'alice');   // the agent asks to write NOTES.md
 * await chat.receive(chatId, 'yes', 'alice');               // { kind: 'approval', decision: 'approve', … }
 */
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
  private readonly mayAnswer: (
    author: string,
    request: UserInteractionRequest,
    askedBy: string | undefined,
  ) => string | undefined;
  private readonly updates = new Updates<{ chatId: string }>();
  private readonly memories = new Map<string, ChatMemory>();
  private readonly chatOfThread = new Map<string, string>();
  private readonly lock = new KeyedLock();
  private readonly beforeOpen: () => Promise<void>;
  private readonly subscription: { unsubscribe(): void };
  private readonly notes: ChatNotes;
  private readonly answers: ChatAnswers;
  private readonly decisions: ChatDecisions;
  private readonly delivery: ChatDelivery;

  constructor(options: ChatChannelOptions) {
    this.interlock = options.interlock;
    this.workflow = options.workflow;
    this.channel = options.channel ?? 'chat';
    this.canApprove = options.canApprove ?? (() => true);
    this.mayAnswer = options.mayAnswer ?? (() => undefined);
    this.beforeOpen = options.beforeOpen ?? (() => Promise.resolve());
    this.notes = new ChatNotes(options.now ?? Date.now);
    this.answers = new ChatAnswers(this.interlock, this.notes);
    this.decisions = new ChatDecisions(this.interlock, this.notes);
    this.delivery = new ChatDelivery(this.interlock, this.notes);
    this.updates$ = this.updates;
    this.handler = { handle: (request, context) => this.handle(request, context) };
    this.subscription = this.interlock.events$.subscribe({ next: (event) => this.observe(event) });
  }

  /**
   * Starts a chat: a thread of the chat workflow on this channel, with the chat's id as its id
   * and in `session.chatId`. A messaging platform gives the id (`options.chatId`, derived from
   * its conversation) so that any process finds the chat of a conversation with one read.
   */
  async open(author: string, options: { chatId?: string } = {}): Promise<{ chatId: string; threadId: string }> {
    await this.beforeOpen();
    // The thread has the chat's id, so a process that has not met the chat finds it with one read.
    const chatId = options.chatId ?? randomUUID();
    const threadId = chatId;
    this.memoryFor(chatId, threadId);
    await this.interlock.start(this.workflow, {
      channel: this.channel,
      threadId,
      session: { chatId, sessionId: chatId, requestedBy: author },
    });
    this.notes.add(this.memoryFor(chatId, threadId), undefined, {
      role: 'notice',
      text: `${author} opened this chat.`,
    });
    this.updates.emit({ chatId });
    return { chatId, threadId };
  }

  /**
   * Takes a message as it arrives. A clear yes or no while approvals wait in this chat
   * answers them (never reaching the agent); an unclear one gets a question back; anything
   * else goes to the agent: at once if it waits for a message, else queued until it asks.
   *
   * `options.via` names the messaging platform it came through (a "no" tells the model so).
   *
   * @throws InterlockError THREAD_NOT_FOUND for an unknown chat.
   */
  async receive(chatId: string, text: string, author: string, options: { via?: string } = {}): Promise<ReceiveResult> {
    const memory = await this.memoryOf(chatId);
    await this.recover(memory);
    try {
      return await this.lock.run(chatId, () => this.take(memory, text, author, options.via));
    } finally {
      this.updates.emit({ chatId });
    }
  }

  /**
   * Decides one named approval of the chat: a button, a card or a modal of a messaging
   * platform (F57). The same checks as a yes or no (the approver list, separation of duties),
   * every refused or losing attempt audited (F51), an edit checked against the tool's schema.
   *
   * @throws InterlockError THREAD_NOT_FOUND for an unknown chat.
   */
  async decide(
    chatId: string,
    interactionId: string,
    choice: ApprovalAction,
    author: string,
    options: { via: string },
  ): Promise<DecideResult> {
    const memory = await this.memoryOf(chatId);
    try {
      return await this.lock.run(chatId, async () => {
        const state = await this.load(memory);
        const situation = {
          status: state.thread.status,
          approvals: state.approvals,
          transcript: state.transcript,
          mayApprove: this.canApprove(author, state.thread.workflowId),
          mayAnswer: (request: UserInteractionRequest) => this.mayAnswer(author, request, state.askerOf(request)),
        };
        return this.decisions.decide(memory, situation, interactionId, choice, author, options.via);
      });
    } finally {
      this.updates.emit({ chatId });
    }
  }

  /** The chat's pending tool approvals, oldest first, read from the store. @throws InterlockError THREAD_NOT_FOUND for an unknown chat. */
  async pendingApprovals(chatId: string): Promise<UserInteractionRequest[]> {
    const memory = await this.memoryOf(chatId);
    const waits = await readThreadWaits(this.interlock, memory.threadId);
    return (waits?.pending ?? []).filter((request) => request.operationType === 'TOOL_APPROVAL');
  }

  /**
   * Writes an attempt to answer `interactionId` that was refused before the chat read it (an
   * unknown platform user, a rate limit) to the audit trail (F51). Unknown interactions are not recorded.
   */
  async recordAttempt(interactionId: string, responder: string, reason: string): Promise<void> {
    await this.interlock.recordAttempt({ interactionId, responder, result: 'refused', reason });
  }

  /** Whether this process has met the chat (opened it, or seen its thread ask or speak). */
  knows(chatId: string): boolean {
    return this.memories.has(chatId);
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
      if (memory.queue.length === 0) return;
      const asking = askingFor(memory, (await readThreadWaits(this.interlock, memory.threadId))?.pending ?? []);
      if (asking !== undefined) await this.delivery.giveOldest(memory, asking);
    });
    this.updates.emit({ chatId });
  }

  /**
   * Looks at every chat this process holds queued messages for, as `heard` does: after the
   * store could not tell of changes (its listener was not connected yet, or reconnected).
   */
  async heardAll(): Promise<void> {
    const waiting = [...this.memories.values()].filter((memory) => memory.queue.length > 0);
    await Promise.all(waiting.map((memory) => this.heard(memory.threadId)));
  }

  /**
   * Announces every chat this process has met, so whatever shows them (a messaging
   * platform's approval messages, the chat view) reads them again: after changes the store
   * could not name (a look at a store that does not report its changes, a reconnection).
   */
  resync(): void {
    for (const chatId of this.memories.keys()) this.updates.emit({ chatId });
  }

  /** Stops listening to the instance's events and completes `updates$`. The threads stay in the store. */
  close(): void {
    this.subscription.unsubscribe();
    this.updates.complete();
  }

  private async take(memory: ChatMemory, text: string, author: string, via?: string): Promise<ReceiveResult> {
    const state = await this.load(memory);
    const after = anchorOf(state.transcript);
    const said = this.notes.add(memory, after, { role: 'user', text, author, consumed: true });
    const route = routeReply(
      { text, author },
      {
        status: state.thread.status,
        approvals: state.approvals,
        transcript: state.transcript,
        asked: [...memory.seen.values()].map((seen) => seen.request),
        numbering: memory.numbering,
        mayApprove: this.canApprove(author, state.thread.workflowId),
        mayAnswer: (request) => this.mayAnswer(author, request, state.askerOf(request)),
      },
    );
    switch (route.kind) {
      case 'notice':
        return this.notes.tell(memory, said.id, route);
      case 'clarify':
        memory.numbering = route.numbering;
        this.notes.add(memory, said.id, { role: 'notice', text: route.text });
        return { kind: 'clarify', text: route.text };
      case 'answer':
        memory.numbering = route.numbering;
        return this.answers.answer(memory, route, author, said.id, via);
      case 'answer-late':
        return this.answers.answerLate(memory, route, author, said.id, via);
      case 'agent': {
        this.notes.drop(memory, said.id);
        const delivered = await this.delivery.deliver(memory, state.pending, { text, author, at: said.at });
        if (route.reminder !== undefined) this.notes.add(memory, after, { role: 'notice', text: route.reminder });
        return delivered;
      }
    }
  }

  /**
   * A thread that waits only on interactions that are no longer pending (their deadline
   * passed while no process ran, and `createInterlock` timed them out) goes on: the agent is
   * told, and the transcript shows them expired before the message is taken.
   */
  private async recover(memory: ChatMemory): Promise<void> {
    const waits = await readThreadWaits(this.interlock, memory.threadId);
    if (
      waits?.thread.status !== 'waiting' ||
      waits.thread.pendingInteractionIds.length === 0 ||
      waits.pending.length > 0
    )
      return;
    try {
      await (await this.interlock.resume(waits.thread.threadId)).done();
    } catch (error) {
      if (!InterlockError.is(error) || error.code !== 'THREAD_BUSY') throw error;
    }
  }

  /** The engine asks: a tool approval waits in the chat; a request for the next message takes the oldest queued one. */
  private async handle(
    request: UserInteractionRequest,
    context: UserInteractionContext,
  ): Promise<UserInteractionHandlerResult> {
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
    if (
      event.type === 'USER_INTERACTION_REQUESTED' &&
      event.request.session.channel === this.channel &&
      event.request.session.chatId !== undefined
    ) {
      const memory = this.memoryFor(event.request.session.chatId, event.threadId);
      const details = event.request.toolApproval;
      if (details) memory.seen.set(approvalKey(details.toolCallId, details.stage), { request: event.request });
    }
    const chatId = this.chatOfThread.get(event.threadId);
    if (chatId === undefined) return;
    if (event.type === 'USER_INTERACTION_RESPONDED' && event.operationType === 'TOOL_APPROVAL') {
      const memory = this.memories.get(chatId);
      const seen = [...(memory?.seen.values() ?? [])].find(
        (candidate) => candidate.request.interactionId === event.interactionId,
      );
      if (seen && !seen.decision) {
        seen.decision = {
          approved: isApproval(event.input),
          at: event.timestamp,
          ...(event.responder === undefined ? {} : { answeredBy: event.responder }),
        };
      }
    }
    this.updates.emit({ chatId });
  }

  /** The chat's thread, what waits in it, its audit trail and its transcript: reads of this one thread only. */
  private load(memory: ChatMemory): Promise<ChatState> {
    return loadChatState(this.interlock, memory, () => this.notes.isoNow());
  }

  /**
   * The chat's memory; found through the store (see {@link findChatThread}) when this
   * process has none yet (after a restart, or a chat another server opened).
   */
  private async memoryOf(chatId: string): Promise<ChatMemory> {
    const known = this.memories.get(chatId);
    if (known) return known;
    const thread = await findChatThread(this.interlock, chatId, { channel: this.channel, workflow: this.workflow });
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
}
