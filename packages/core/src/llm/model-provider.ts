import type { Message, ToolCall } from '@interlock/sdk-types';

/** What a model is asked: the conversation so far, with the system prompt first. */
export interface ModelRequest {
  threadId: string;
  nodeId: string;
  messages: Message[];
  signal: AbortSignal;
  /** Called with each piece of text as it streams, when the provider streams. */
  onTextDelta?: (delta: string) => void;
}

export interface ModelResponse {
  text: string;
  toolCalls?: ToolCall[];
}

/** A chat model. Implementations: `scriptedModel` (offline), real providers later. */
export interface ModelProvider {
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
