/**
 * Canonical JSON: object keys sorted (by UTF-16 code units, as `Array.prototype.sort` does)
 * at every level, everything else as `JSON.stringify` writes it. Equal JSON values give equal
 * text, whatever the order their keys came in. It is the text Interlock hashes to bind an
 * approval to a call's arguments (F62, F63): core's `hashArguments` and
 * {@link argumentsHash} here hash the same text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** SHA-256 of `text` (UTF-8), as lower-case hex. Web Crypto: runs in Node, Deno, Bun, workers and browsers. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The hash a receipt carries of the arguments it approved (its `args` claim): SHA-256 (hex)
 * of their canonical JSON. Give the arguments as the service received them, parsed from JSON.
 */
export function argumentsHash(args: unknown): Promise<string> {
  return sha256Hex(canonicalJson(args));
}
