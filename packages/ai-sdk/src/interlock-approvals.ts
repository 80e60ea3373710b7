import {
  createApprovalGate,
  InterlockError,
  type ApprovalGate,
  type ApprovalGateOptions,
  type GateDecision,
  type GatePending,
  type GateToolPolicy,
} from '@interlock/core';
import { asSchema, type ModelMessage, type Tool, type ToolModelMessage, type ToolSet } from 'ai';

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

/**
 * Interlock as the approval layer of the Vercel AI SDK 6 (F56): `needsApproval` backed by
 * Interlock's policy — a call a rule allows runs at once; any other becomes the SDK's
 * `tool-approval-request` and a durable Interlock interaction (web inbox, chat,
 * `interlock pending` / `respond`) — and {@link respond}, which turns the answers into the
 * `tool-approval-response` message of the next call.
 */
export class InterlockApprovals {
  /** @internal Use {@link interlockApprovals}. */
  constructor(
    /** The gate: its Interlock answers, lists what waits and reads the audit. */
    readonly gate: ApprovalGate,
  ) {}

  /**
   * The tools with `needsApproval` decided by Interlock for the conversation `sessionId`
   * (a chat id: the decision of a call is found again by it and the call's id).
   */
  tools<TOOLS extends ToolSet>(tools: TOOLS, options: { sessionId: string }): TOOLS {
    const wrapped: Record<string, Tool> = {};
    for (const [name, tool] of Object.entries(tools)) {
      wrapped[name] = {
        ...tool,
        needsApproval: async (input: unknown, { toolCallId }: { toolCallId: string }) =>
          !(await this.allowedAtOnce(name, toolCallId, input, options.sessionId)),
      } as Tool;
    }
    return wrapped as TOOLS;
  }

  /**
   * The answers to the approval requests of the last assistant message: the conversation
   * for the next `generateText` / `streamText` call, with the approval responses appended
   * and an edited call's input replaced in the history (the SDK runs a call as it stands
   * there, and the model sees what ran). With `wait`, waits for the people (or `signal`).
   */
  async respond(
    messages: readonly ModelMessage[],
    options: { sessionId: string; wait?: boolean; signal?: AbortSignal },
  ): Promise<ApprovalsOutcome> {
    const requests = openRequests(messages);
    const threadIds = requests.map((request) => decisionThreadId(options.sessionId, request.toolCallId));
    const found = await this.gate.decisions(threadIds, {
      ...(options.wait === undefined ? {} : { wait: options.wait }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const pending = found.filter((decision): decision is GatePending => decision.status === 'pending');
    if (pending.length > 0) return { status: 'waiting', pending };
    const decisions = found as GateDecision[];
    const edits = new Map<string, Record<string, unknown>>();
    const content: ToolModelMessage['content'] = requests.map((request) => {
      const decision = decisions.find((candidate) => candidate.toolCallId === request.toolCallId);
      if (decision?.status !== 'approved') {
        return {
          type: 'tool-approval-response',
          approvalId: request.approvalId,
          approved: false,
          reason: decision === undefined ? 'Interlock: no decision was found' : `Interlock: ${decision.reason}`,
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

  /** Decides the call (once per call id): true when a rule allows it as proposed, so it runs without a request. */
  private async allowedAtOnce(name: string, toolCallId: string, input: unknown, sessionId: string): Promise<boolean> {
    const threadId = decisionThreadId(sessionId, toolCallId);
    let [decision] = await this.gate.decisions([threadId]);
    if (decision === undefined) {
      const outcome = await this.gate.decide(
        [{ toolCallId, toolName: name, arguments: argumentsOf(input), threadId }],
        { detach: true, session: { sessionId } },
      );
      [decision] = outcome.decisions;
    }
    return decision?.status === 'approved' && !decision.edited && decision.decidedBy !== 'person';
  }
}

/** The decision thread of a call: found again from the chat and the call's id. */
function decisionThreadId(sessionId: string, toolCallId: string): string {
  return `ai-sdk:${sessionId}:${toolCallId}`;
}

/** The approval requests of the last assistant message that no tool message answered yet. */
function openRequests(messages: readonly ModelMessage[]): { approvalId: string; toolCallId: string }[] {
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-approval-response') answered.add(part.approvalId);
  }
  const requests: { approvalId: string; toolCallId: string }[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-request' && !answered.has(part.approvalId))
        requests.push({ approvalId: part.approvalId, toolCallId: part.toolCallId });
    }
  }
  return requests;
}

/** The conversation with the input of each edited call replaced. */
function withEdits(
  messages: readonly ModelMessage[],
  edits: ReadonlyMap<string, Record<string, unknown>>,
): ModelMessage[] {
  if (edits.size === 0) return [...messages];
  return messages.map((message) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    return {
      ...message,
      content: message.content.map((part) =>
        part.type === 'tool-call' && edits.has(part.toolCallId) ? { ...part, input: edits.get(part.toolCallId) } : part,
      ),
    };
  });
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
 * const tools = approvals.tools({ read_file, write_file }, { sessionId: chatId });
 * const first = await generateText({ model, tools, messages });
 * const answer = await approvals.respond([...messages, ...first.response.messages], { sessionId: chatId, wait: true });
 * if (answer.status === 'ready') await generateText({ model, tools, messages: answer.messages });
 */
export async function interlockApprovals(
  options: InterlockApprovalsOptions & { toolSet?: ToolSet },
): Promise<InterlockApprovals> {
  const { name, tools = {}, toolSet = {}, ...gateOptions } = options;
  const policies: Record<string, GateToolPolicy> = {};
  for (const [toolName, policy] of Object.entries(tools)) {
    const tool = toolSet[toolName];
    const jsonSchema = tool === undefined ? undefined : await schemaOf(tool);
    policies[toolName] = jsonSchema === undefined ? policy : { ...policy, jsonSchema };
  }
  return new InterlockApprovals(await createApprovalGate({ ...gateOptions, name: name ?? 'ai-sdk', tools: policies }));
}

async function schemaOf(tool: {
  inputSchema: Parameters<typeof asSchema>[0];
}): Promise<Record<string, unknown> | undefined> {
  try {
    const { $schema: _dialect, ...schema } = (await asSchema(tool.inputSchema).jsonSchema) as Record<string, unknown>;
    return schema;
  } catch (error) {
    throw new InterlockError('INVALID_OPTIONS', 'a tool’s input schema cannot be read as JSON Schema', {
      cause: error,
    });
  }
}
