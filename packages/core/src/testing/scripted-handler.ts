import type {
  IUserInteractionHandler,
  UserInteractionContext,
  UserInteractionHandlerResult,
  UserInteractionRequest,
} from '@interlock/sdk-types';

/** One scripted answer: raw input, a full handler result, or a function of the request. */
export type ScriptedAnswer =
  | { input: unknown }
  | UserInteractionHandlerResult
  | ((
      request: UserInteractionRequest,
      context: UserInteractionContext,
    ) => UserInteractionHandlerResult | Promise<UserInteractionHandlerResult>);

export interface ScriptedHandler extends IUserInteractionHandler {
  /** Every request received, in order. */
  readonly requests: readonly UserInteractionRequest[];
}

/**
 * A handler that answers from a script, for tests and demos. Plain inputs are wrapped as
 * `{ outcome: 'responded', input }`; when the script runs out, it defers (the thread waits).
 *
 * @example
 * const handler = scriptedHandler([{ input: 'yes' }]);
 */
export function scriptedHandler(answers: ScriptedAnswer[]): ScriptedHandler {
  const requests: UserInteractionRequest[] = [];
  return {
    requests,
    async handle(request, context) {
      requests.push(request);
      const answer = answers[requests.length - 1];
      if (answer === undefined) return { outcome: 'deferred' };
      if (typeof answer === 'function') return answer(request, context);
      if ('outcome' in answer) return answer;
      return { outcome: 'responded', input: answer.input };
    },
  };
}
