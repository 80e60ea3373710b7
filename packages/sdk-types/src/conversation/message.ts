import { z } from 'zod';

export const MessageRole = z.enum(['system', 'user', 'assistant', 'tool']);
export type MessageRole = z.infer<typeof MessageRole>;

/** A tool call proposed by the model in an assistant message. */
export const ToolCall = z.strictObject({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** One message of a thread's conversation, in the shape model providers accept. */
export const Message = z.strictObject({
  role: MessageRole,
  content: z.string(),
  toolCalls: z.array(ToolCall).optional(),
  toolCallId: z.string().optional(),
  /** The node that added the message. */
  nodeId: z.string().optional(),
});
export type Message = z.infer<typeof Message>;
