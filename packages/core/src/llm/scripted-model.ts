import { InterlockError } from '../errors/interlock-error.js';
import type { ModelProvider, ModelRequest, ModelResponse } from './model-provider.js';

/** One scripted turn: a text reply, a full response, or a function of the request. */
export type ScriptedTurn = string | ModelResponse | ((request: ModelRequest) => string | ModelResponse);

/** A model that answers from a script: offline, deterministic, and it remembers what it was asked. */
export interface ScriptedModel extends ModelProvider {
  /** Every request received, in order (messages copied at call time). */
  readonly requests: readonly ModelRequest[];
}

/**
 * Creates a model that replies with the given turns in order, or, given one function, calls
 * it for every request. Text is streamed word by word through `onTextDelta`.
 *
 * @example
 * const model = scriptedModel(['Plan: 1. read 2. write', 'Done.']);
 */
export function scriptedModel(
  turns: ScriptedTurn[] | ((request: ModelRequest) => string | ModelResponse),
): ScriptedModel {
  const requests: ModelRequest[] = [];
  return {
    name: 'scripted',
    requests,
    async complete(request) {
      if (request.signal.aborted)
        throw new InterlockError('MODEL_FAILED', 'the scripted model was called after the run was stopped');
      requests.push({ ...request, messages: structuredClone(request.messages) });
      const turn = typeof turns === 'function' ? turns : turns[requests.length - 1];
      if (turn === undefined) {
        throw new InterlockError(
          'MODEL_FAILED',
          `the scripted model has no reply for call ${requests.length} (it was given ${Array.isArray(turns) ? turns.length : 0}): add a turn`,
        );
      }
      const reply = typeof turn === 'function' ? turn(request) : turn;
      const response = typeof reply === 'string' ? { text: reply } : reply;
      for (const word of response.text.match(/\S+\s*/g) ?? []) request.onTextDelta?.(word);
      return response;
    },
  };
}
