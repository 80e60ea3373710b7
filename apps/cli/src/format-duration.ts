import type { UserInteractionRequest } from '@interlock/sdk-types';

/** A duration for people: `5 min`, `30 s`, `1500 ms`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000} min`;
  if (milliseconds % 1000 === 0) return `${milliseconds / 1000} s`;
  return `${milliseconds} ms`;
}

/** `answer within 30 s` for a request with a deadline; undefined when it waits until answered. */
export function deadlineHint(request: UserInteractionRequest): string | undefined {
  return request.deadline === null ? undefined : `answer within ${formatDuration(request.timeout)}`;
}
