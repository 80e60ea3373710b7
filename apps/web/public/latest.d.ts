/** Types of latest.js: the page's modules and the tests both read them. */
export function latestOnly<A extends unknown[], T>(
  load: (...args: A) => Promise<T>,
): (...args: A) => Promise<{ value: T } | undefined>;
