import { createHash } from 'node:crypto';
import {
  createApprovalGate,
  mismatchOf,
  receiptInScope,
  runWithReceipts,
  type ApprovalGate,
  type ApprovalGateOptions,
  type GateDecision,
  type GatePending,
  type GateToolPolicy,
} from '@interlock/core';
import type { ModelMessage, Tool, ToolModelMessage, ToolSet } from 'ai';
import { isReplayOf, openRequests, withEdits, type OpenRequest } from './conversation.js';
import { toolSchemas } from './tool-schemas.js';

/** How Interlock sees a tool: its category and risk, and where its command or path is (the JSON Schema comes from the tool). */
export type AiToolPolicy = Omit<GateToolPolicy, 'jsonSchema'>;

export interface InterlockApprovalsOptions extends Omit<ApprovalGateOptions, 'continuation' | 'name' | 'tools'> {
  /** The gate's name (one per app in a store). Default `ai-sdk`. */
  name?: string;
  /** How Interlock sees each tool, by name. A tool left out is category `ask`: a person decides every call. */
  tools?: Record<string, AiToolPolicy>;
}

/** What {@link InterlockApprovals.respond} came to: the messages for the next call, or calls still waiting for a person. */
export type ApprovalsOutcome =
  | {
      status: 'ready';
      /** The conversation with edited calls rewritten and the approval responses appended: pass it to the next `generateText` / `streamText`. */
      messages: ModelMessage[];
      decisions: GateDecision[];
    }
  | { status: 'waiting'; pending: GatePending[] };

/** A call as the SDK hands it to `toolApproval`. */
export interface ApprovalToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** What {@link InterlockApprovals.toolApproval} answers the SDK (AI SDK 7's approval statuses). */
export type ApprovalStatus =
  | { type: 'not-applicable' }
  | { type: 'approved'; reason?: string }
  | { type: 'denied'; reason?: string }
  | { type: 'user-approval'; reason?: string };

/** AI SDK 7's `toolApproval` of `generateText` / `streamText`, decided by Interlock. */
export type InterlockToolApproval = (options: {
  toolCall: ApprovalToolCall;
  tools?: ToolSet | undefined;
  messages: ModelMessage[];
}) => Promise<ApprovalStatus>;

/**
 * Interlock as the approval layer of the Vercel AI SDK 7 and 6 (F56): `toolApproval` (AI SDK
 * 7) or `needsApproval` (AI SDK 6) backed by Interlock's policy — a call a rule allows runs
 * at once, one a rule denies is refused with the rule's reason, any other becomes the SDK's
 * `tool-approval-request` and a durable Interlock interaction (web inbox, chat, `interlock
 * pending` / `respond`) — and {@link respond}, which turns the answers into the
 * `tool-approval-response` message of the next call. Every call the model makes is decided
 * on its own, whatever id it carries, and runs only as decided (F62).
 */
export class InterlockApprovals {
  private readonly described = new WeakSet<object>();

  /** @internal Use {@link interlockApprovals}. */
  constructor(
    /** The gate: its Interlock answers, lists what waits and reads the audit. */
    readonly gate: ApprovalGate,
  ) {}

  /**
   * AI SDK 7: the `toolApproval` of `generateText` / `streamText` for the conversation
   * `sessionId` (a chat id). Each call the model makes is decided afresh; when the SDK runs a
   * call a person approved it asks again, and only the call as approved (tool, arguments
   * after any edit, definition) runs — any other is denied.
   *
   * @example
   * await generateText({ model, tools, toolApproval: approvals.toolApproval({ sessionId }), messages });
   */
  toolApproval(options: { sessionId: string }): InterlockToolApproval {
    return async ({ toolCall, tools, messages }) => {
      if (tools !== undefined) await this.describe(tools);
      const call = {
        toolCallId: toolCall.toolCallId,
        toolName: toolCall.toolName,
        arguments: argumentsOf(toolCall.input),
      };
      if (isReplayOf(messages, toolCall.toolCallId)) {
        const decision = await this.latest(options.sessionId, toolCall.toolCallId);
        if (decision !== undefined && this.gate.letsRun(decision, call)) return { type: 'approved' };
        const refused = decision?.status === 'rejected' ? decision : mismatchOf(call);
        return { type: 'denied', reason: `Interlock: ${refused.status === 'rejected' ? refused.reason : ''}` };
      }
      const decision = await this.decideAfresh(call, options.sessionId);
      if (decision.status === 'pending') return { type: 'user-approval' };
      if (decision.status === 'rejected') return { type: 'denied', reason: `Interlock: ${decision.reason}` };
      // Allowed by a rule: it runs as a call that needs no approval does (the audit says which rule).
      return { type: 'not-applicable' };
    };
  }

  /**
   * AI SDK 6: the tools with `needsApproval` decided by Interlock for the conversation
   * `sessionId`. Each call the model makes is decided afresh; a call a rule allows runs at
   * once, any other becomes an approval request that {@link respond} answers. (On AI SDK 7
   * use {@link toolApproval}: `needsApproval` is deprecated there, and cannot refuse a
   * call when the SDK asks again before it runs one.)
   */
  tools<TOOLS extends ToolSet>(tools: TOOLS, options: { sessionId: string }): TOOLS {
    const wrapped: Record<string, Tool> = {};
    for (const [name, tool] of Object.entries(tools)) {
      const needsApproval = async (
        input: unknown,
        { toolCallId, messages }: { toolCallId: string; messages?: ModelMessage[] },
      ) => {
        // AI SDK 7 asks again before it runs an answered request: `respond()` decided it.
        if (messages !== undefined && isReplayOf(messages, toolCallId)) return true;
        await this.describe(tools);
        const decision = await this.decideAfresh(
          { toolCallId, toolName: name, arguments: argumentsOf(input) },
          options.sessionId,
        );
        return !(decision.status === 'approved' && !decision.edited && decision.decidedBy !== 'person');
      };
      // AI SDK 6 has no `toolApproval`: `needsApproval` is its only hook (deprecated in 7, where `toolApproval()` is used).
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- see above
      wrapped[name] = { ...tool, needsApproval } as Tool;
    }
    // Each call that runs gets its receipt (F63).
    return this.withReceipts(wrapped as TOOLS, options);
  }

  /**
   * The tools with approval receipts (F63): right before the SDK runs a call, its receipt is
   * signed — only for the call exactly as Interlock decided it (tool, arguments after any
   * edit, definition) — and the tool's `execute` reads it with `currentReceipt()` to forward
   * to its service (the `Interlock-Receipt` header). A call without a decision of its own
   * runs without one, and a service that checks receipts refuses it. AI SDK 7: wrap the
   * tools passed with {@link toolApproval}; AI SDK 6: {@link tools} does it already.
   *
   * @example
   * await generateText({ model, tools: approvals.withReceipts(tools, { sessionId }), toolApproval, messages });
   */
  withReceipts<TOOLS extends ToolSet>(tools: TOOLS, options: { sessionId: string }): TOOLS {
    const wrapped: Record<string, Tool> = {};
    for (const [name, tool] of Object.entries(tools)) {
      const execute = tool.execute;
      if (execute === undefined) {
        wrapped[name] = tool as Tool;
        continue;
      }
      wrapped[name] = {
        ...tool,
        execute: async (input: unknown, runOptions: { toolCallId: string }) => {
          const call = { toolName: name, arguments: argumentsOf(input) };
          const decision = await this.latest(options.sessionId, runOptions.toolCallId);
          const receipt = decision === undefined ? undefined : await this.gate.receipt(decision, call);
          const scoped = receipt === undefined ? [] : [receiptInScope(receipt, name, call.arguments)];
          const run = execute as (...args: unknown[]) => unknown;
          return runWithReceipts(scoped, () => run(input, runOptions));
        },
      };
    }
    return wrapped as TOOLS;
  }

  /**
   * The answers to the approval requests of the last assistant message: the conversation
   * for the next `generateText` / `streamText` call, with the approval responses appended
   * and an edited call's input replaced in the history (the SDK runs a call as it stands
   * there, and the model sees what ran). Each request is answered by the decision of exactly
   * the call the SDK will run for it; another call under its id is refused (F62). With
   * `wait`, waits for the people (or `signal`). With no open request, the conversation is
   * handed back as it is.
   */
  async respond(
    messages: readonly ModelMessage[],
    options: { sessionId: string; wait?: boolean; signal?: AbortSignal },
  ): Promise<ApprovalsOutcome> {
    const requests = openRequests(messages);
    if (requests.length === 0) return { status: 'ready', messages: [...messages], decisions: [] };
    const found = await Promise.all(
      requests.map((request) => this.latestThread(options.sessionId, request.toolCallId)),
    );
    const threadIds = found.filter((threadId): threadId is string => threadId !== undefined);
    const read = await this.gate.decisions(threadIds, {
      ...(options.wait === undefined ? {} : { wait: options.wait }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const pending = read.filter((decision): decision is GatePending => decision.status === 'pending');
    if (pending.length > 0) return { status: 'waiting', pending };
    const byThread = new Map(read.map((decision) => [decision.threadId, decision as GateDecision]));
    const decisions = requests.map((request, index) => this.answerOf(request, byThread.get(found[index] ?? '')));
    const edits = new Map<string, Record<string, unknown>>();
    const content: ToolModelMessage['content'] = requests.map((request, index) => {
      const decision = decisions[index] as GateDecision;
      if (decision.status !== 'approved') {
        return {
          type: 'tool-approval-response',
          approvalId: request.approvalId,
          approved: false,
          reason: `Interlock: ${decision.reason}`,
        };
      }
      if (decision.edited) edits.set(request.toolCallId, decision.arguments);
      return {
        type: 'tool-approval-response',
        approvalId: request.approvalId,
        approved: true,
        ...(decision.instruction === undefined ? {} : { reason: decision.instruction }),
      };
    });
    return { status: 'ready', messages: [...withEdits(messages, edits), { role: 'tool', content }], decisions };
  }

  /** Stops the gate (decisions stay in the store). */
  close(): Promise<void> {
    return this.gate.close();
  }

  /** The decision that answers `request`: the one of exactly the call the SDK will run, else a refusal (F62). */
  private answerOf(request: OpenRequest, decision: GateDecision | undefined): GateDecision {
    const call = {
      toolCallId: request.toolCallId,
      toolName: request.toolName ?? '',
      arguments: argumentsOf(request.input),
    };
    if (decision !== undefined && request.toolName !== undefined && this.gate.decidedExactly(decision, call))
      return decision;
    return mismatchOf(call);
  }

  /** Gives the gate the tools' schemas (an edit is checked against them), once per tool set. */
  private async describe(tools: ToolSet): Promise<void> {
    if (this.described.has(tools)) return;
    this.gate.describeTools(await toolSchemas(tools));
    this.described.add(tools);
  }

  /**
   * Decides a call the model just made, in a decision thread of its own (F62): the n-th call
   * with this id in the conversation is the n-th thread of the id, found again by
   * {@link respond} in any process of the app.
   */
  private async decideAfresh(
    call: { toolCallId: string; toolName: string; arguments: Record<string, unknown> },
    sessionId: string,
  ): Promise<GateDecision | GatePending> {
    for (let occurrence = (await this.lastOccurrence(sessionId, call.toolCallId)) + 1; ; occurrence += 1) {
      const threadId = this.threadIdOf(sessionId, call.toolCallId, occurrence);
      try {
        const outcome = await this.gate.decide([{ ...call, threadId }], { detach: true, session: { sessionId } });
        return outcome.decisions[0] as GateDecision | GatePending;
      } catch (error) {
        // Another call with this id took the thread first: this one is the next.
        if ((await this.gate.interlock.thread(threadId)) === undefined) throw error;
      }
    }
  }

  /** The decision of the latest call with this id in the conversation. */
  private async latest(sessionId: string, toolCallId: string): Promise<GateDecision | GatePending | undefined> {
    const threadId = await this.latestThread(sessionId, toolCallId);
    if (threadId === undefined) return undefined;
    const [decision] = await this.gate.decisions([threadId]);
    return decision;
  }

  private async latestThread(sessionId: string, toolCallId: string): Promise<string | undefined> {
    const occurrence = await this.lastOccurrence(sessionId, toolCallId);
    return occurrence === 0 ? undefined : this.threadIdOf(sessionId, toolCallId, occurrence);
  }

  private async lastOccurrence(sessionId: string, toolCallId: string): Promise<number> {
    let occurrence = 0;
    while ((await this.gate.interlock.thread(this.threadIdOf(sessionId, toolCallId, occurrence + 1))) !== undefined)
      occurrence += 1;
    return occurrence;
  }

  /** The decision thread of the n-th call with this id in the conversation, in this gate. */
  private threadIdOf(sessionId: string, toolCallId: string, occurrence: number): string {
    const key = createHash('sha256')
      .update(JSON.stringify([this.gate.name, sessionId, toolCallId]))
      .digest('hex')
      .slice(0, 32);
    return `${this.gate.name}:${key}:${String(occurrence)}`;
  }
}

function argumentsOf(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { input };
}

/**
 * Creates the approval layer of an AI SDK app (F56).
 *
 * @example
 * const approvals = await interlockApprovals({ store: { type: 'sqlite' }, tools: { write_file: { category: 'write', riskLevel: 'MEDIUM' } } });
 * const toolApproval = approvals.toolApproval({ sessionId: chatId });
 * const first = await generateText({ model, tools, toolApproval, messages });
 * const answer = await approvals.respond([...messages, ...first.response.messages], { sessionId: chatId, wait: true });
 * if (answer.status === 'ready') await generateText({ model, tools, toolApproval, messages: answer.messages });
 */
export async function interlockApprovals(
  options: InterlockApprovalsOptions & { toolSet?: ToolSet },
): Promise<InterlockApprovals> {
  const { name, tools = {}, toolSet, ...gateOptions } = options;
  const approvals = new InterlockApprovals(
    await createApprovalGate({
      ...gateOptions,
      name: name ?? 'ai-sdk',
      tools: tools,
    }),
  );
  if (toolSet !== undefined) approvals.gate.describeTools(await toolSchemas(toolSet));
  return approvals;
}
