import type { Model, ModelRequest } from '@openai/agents';

/**
 * The agent's model, with every function call of a response given an id no earlier call of
 * the conversation (or of the same response) has (F62). Model-proposed ids are not unique
 * — a model or a provider repeats them, an attacker who steers the model chooses them —
 * and the SDK finds approvals by them (0.20 refuses a reused id and fails the run): a call
 * `call_1` made again becomes `call_1~2`, in the history the model reads too, so each call
 * is an interruption of its own and Interlock decides it on its own.
 *
 * A conversation the server keeps (`previousResponseId`, `conversationId`) is left as the
 * model answered it: the server knows the ids it gave.
 */
export function distinctCallIds(model: Model): Model {
  return {
    ...(model.supportsPromptModelSelection === undefined
      ? {}
      : { supportsPromptModelSelection: model.supportsPromptModelSelection }),
    getResponse: async (request) => {
      const response = await model.getResponse(request);
      return keptByServer(request) ? response : { ...response, output: renamed(response.output, request) };
    },
    getStreamedResponse: (request) => renamedStream(model, request),
    ...(model.getRetryAdvice === undefined ? {} : { getRetryAdvice: model.getRetryAdvice.bind(model) }),
  };
}

async function* renamedStream(model: Model, request: ModelRequest): ReturnType<Model['getStreamedResponse']> {
  for await (const event of model.getStreamedResponse(request)) {
    if (event.type === 'response_done' && !keptByServer(request)) {
      yield { ...event, response: { ...event.response, output: renamed(event.response.output, request) } };
    } else {
      yield event;
    }
  }
}

function keptByServer(request: ModelRequest): boolean {
  const { previousResponseId, conversationId } = request as { previousResponseId?: string; conversationId?: string };
  return previousResponseId !== undefined || conversationId !== undefined;
}

function renamed<Item>(output: readonly Item[], request: ModelRequest): Item[] {
  const taken = new Set<string>();
  if (Array.isArray(request.input)) {
    for (const item of request.input as readonly unknown[]) {
      const callId = (item as { callId?: unknown }).callId;
      if (typeof callId === 'string') taken.add(callId);
    }
  }
  return output.map((item) => {
    const { type, callId: proposed } = item as { type?: unknown; callId?: unknown };
    if (type !== 'function_call' || typeof proposed !== 'string') return item;
    let callId = proposed;
    for (let occurrence = 2; taken.has(callId); occurrence += 1) callId = `${proposed}~${String(occurrence)}`;
    taken.add(callId);
    return callId === proposed ? item : { ...item, callId };
  });
}
