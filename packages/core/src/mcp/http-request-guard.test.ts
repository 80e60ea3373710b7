import { describe, expect, it } from 'vitest';
import { checkHttpRequest, isLoopbackHost } from './http-request-guard.js';

/* Issue 24, item 4: who may talk to `interlock mcp serve --http`. */
const local = { port: 8765, bindHost: '127.0.0.1' };

describe('checkHttpRequest (issue 24)', () => {
  it('answers loopback names with its port, and nothing else: a rebound DNS name is refused (F50)', () => {
    for (const host of ['127.0.0.1:8765', 'localhost:8765', '[::1]:8765', 'LOCALHOST:8765'])
      expect(checkHttpRequest({ host }, local)).toEqual({ ok: true });
    for (const host of ['attacker.example:8765', 'localhost:80', '127.0.0.1', 'localhost.attacker.example:8765', ''])
      expect(checkHttpRequest({ host }, local)).toMatchObject({ ok: false, status: 403 });
    expect(checkHttpRequest({}, local)).toMatchObject({ ok: false, status: 403 });
  });

  it('refuses any web page by its Origin unless that origin is allowed, an opaque origin included (F50)', () => {
    const host = '127.0.0.1:8765';
    for (const origin of [
      'http://attacker.example',
      'http://127.0.0.1:8765.attacker.example',
      'null',
      'http://localhost:3000',
    ])
      expect(checkHttpRequest({ host, origin }, local)).toMatchObject({ ok: false, status: 403 });
    const allowed = { ...local, allowedOrigins: ['https://inbox.example.com'] };
    expect(checkHttpRequest({ host, origin: 'https://inbox.example.com' }, allowed)).toEqual({ ok: true });
    expect(checkHttpRequest({ host, origin: 'https://inbox.example.com.attacker.example' }, allowed)).toMatchObject({
      ok: false,
    });
  });

  it('needs the bearer token when one is set, whatever else is right (F50)', () => {
    const guarded = {
      port: 443,
      bindHost: '0.0.0.0',
      token: 's3cret-token-of-some-length',
      allowedHosts: ['mcp.example.com'],
    };
    expect(checkHttpRequest({ host: 'mcp.example.com' }, guarded)).toMatchObject({ ok: false, status: 401 });
    expect(
      checkHttpRequest({ host: 'mcp.example.com', authorization: 'Bearer s3cret-token-of-some-lengtH' }, guarded),
    ).toMatchObject({ ok: false, status: 401 });
    expect(
      checkHttpRequest({ host: 'mcp.example.com', authorization: 'Bearer s3cret-token-of-some-length' }, guarded),
    ).toEqual({ ok: true });
    // A wildcard bind answers to no name of its own: only the allowed ones.
    expect(
      checkHttpRequest({ host: '0.0.0.0:443', authorization: 'Bearer s3cret-token-of-some-length' }, guarded),
    ).toMatchObject({ ok: false, status: 403 });
  });

  it('tells loopback addresses from the others', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '::', '192.168.1.2', 'example.com', '127.0.0.1.example.com'].some(isLoopbackHost)).toBe(false);
  });
});
