// The page's side of the HTTP API: JSON in and out, the session's CSRF token on every state change.

let csrfToken = '';

export function setCsrfToken(token) {
  csrfToken = token ?? '';
}

/** An error response of the API: { code, message } and the HTTP status. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `the server answered ${status}`);
    this.status = status;
    this.code = body?.code ?? 'UNKNOWN';
    this.details = body?.details;
  }
}

/**
 * Calls the API. Throws ApiError for any status >= 400.
 * @param {string} path
 * @param {{ method?: string, body?: unknown }} [options]
 */
export async function api(path, options = {}) {
  const method = options.method ?? 'GET';
  const headers = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const body = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}
