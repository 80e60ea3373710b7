import type { Message } from '@interlock/sdk-types';

/** A tool as the model sees it: parameters as JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A tool call proposed by the model. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * Set when the model's arguments were not a JSON object (malformed JSON, or a list);
   * `arguments` is then `{}` and the loop answers with a tool error the model can fix.
   */
  argumentsError?: string;
}

/** What a model is asked: the conversation so far, with the system prompt first. */
export interface ModelRequest {
  threadId: string;
  nodeId: string;
  messages: Message[];
  /** The tools the model may call; none when empty or absent. */
  tools?: ToolSpec[];
  signal: AbortSignal;
  /** Called with each piece of text as it streams, when the provider streams. */
  onTextDelta?: (delta: string) => void;
}

export interface ModelResponse {
  text: string;
  toolCalls?: ModelToolCall[];
}

/** A chat model. Implementations: `scriptedModel` (offline), `openAICompatible` and `anthropic`. */
export interface ModelProvider {
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
