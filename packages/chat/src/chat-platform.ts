import type { ChatApprovalStatus } from './chat-types.js';

/**
 * One tool approval as a messaging platform shows it: what the call is, where it stands,
 * and (while it waits) which actions to offer. Every text in it is already made safe to show
 * (invisible characters marked, see {@link showInvisibles}); a platform still sends it as
 * plain text, never as markup, so nothing in a tool's arguments can mention people or hide text.
 */
export interface ApprovalCard {
  interactionId: string;
  /** The transcript line's id: stable for the call and stage. */
  entryId: string;
  toolName: string;
  /** `execution`, `result` or `recovery`. */
  stage: string;
  /** The risk level of the call, when the request says it (`LOW`, `MEDIUM`, `HIGH`). */
  riskLevel: string | undefined;
  /** The arguments as the tool got them (for an edit form's initial value). */
  arguments: Record<string, unknown>;
  /** The arguments as indented JSON, cut to a size every platform shows, invisible characters marked. */
  argumentsText: string;
  status: ChatApprovalStatus;
  answeredBy: string | undefined;
  /** One line saying what is asked, or how it ended. */
  summary: string;
  /** While it waits: approve, reject and edit (edit only for a call that has not run). */
  actions: readonly ('approve' | 'reject' | 'edit')[];
}

/** Where a platform put a message, to update it later (a Slack channel and timestamp, a Feishu message id…). */
export type PostedRef = string;

/**
 * The port a messaging platform implements (F57): what the chat channel needs to show a chat
 * there. Everything else — the reply grammar, the interception before the agent's queue,
 * who may answer, separation of duties, rate limits and the audit of refused attempts — stays
 * in {@link ChatPlatformBridge}, once for every platform.
 */
export interface ChatPlatform {
  /** The platform's name as people know it (`Slack`, `Feishu`, `WhatsApp`): said in notices and audit reasons. */
  readonly name: string;
  /** A short lower-case prefix for chat ids (`slack`): the chat of conversation `C1` is `slack-C1`. */
  readonly prefix: string;
  /** Posts a line of the chat (the agent's reply, a notice) into the conversation. */
  post(conversation: string, text: string): Promise<void>;
  /** Posts an approval with its actions; the reference lets {@link updateApproval} change it later. */
  postApproval(conversation: string, card: ApprovalCard): Promise<PostedRef>;
  /** Shows how an approval ended (answered anywhere, expired, cancelled): no action is offered any more. */
  updateApproval(conversation: string, ref: PostedRef, card: ApprovalCard): Promise<void>;
  /** Tells one person something only they see, where the platform can (else a message to them). */
  notify(conversation: string, user: string, text: string): Promise<void>;
}

/** A message someone wrote on the platform. */
export interface InboundMessage {
  conversation: string;
  /** The platform's user id (`U0123`, an open id, a phone number). */
  user: string;
  text: string;
  /** The approval message it replies to (a Slack thread, a quoted WhatsApp message), if any. */
  replyTo?: PostedRef | undefined;
}

/** A button, card or modal action on one approval. */
export interface InboundAction {
  conversation: string;
  user: string;
  interactionId: string;
  action: 'approve' | 'reject' | 'edit';
  /** For `edit`: the new arguments as the person typed them (JSON text), read strictly. */
  argumentsText?: string | undefined;
  reason?: string | undefined;
}

/** What became of an action, for the platform to show in place (a modal's error, a toast). */
export type ActionOutcome =
  | { kind: 'decided'; text: string }
  | { kind: 'refused'; text: string }
  /** The edited arguments do not read or do not fit: show `text` where they were typed; nothing changed. */
  | { kind: 'invalid'; text: string };
