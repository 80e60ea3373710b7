/**
 * Freezes a value and everything in it. A part frozen already is not walked again: the
 * engine's values share their unchanged parts with the values before them, so freezing a
 * new value only walks what is new.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  // Only plain data: a tool's result may hold a Buffer or a class instance, left as it is.
  const prototype: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
