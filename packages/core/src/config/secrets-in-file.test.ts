import { describe, expect, it } from 'vitest';
import { InterlockError } from '../errors/interlock-error.js';
import { parseProjectConfig } from './project-config.js';
import { withoutUrlCredentials } from './secrets-in-file.js';

/* Issue 24, item 9: secrets written into the project file are refused, and never printed back. */
const PASSWORD = 's3cr3t-Pa55';

function refusal(toml: string): InterlockError {
  try {
    parseProjectConfig(toml, '/project/interlock.toml');
  } catch (error) {
    if (InterlockError.is(error)) return error;
    throw error;
  }
  throw new Error('the file was accepted');
}

describe('secrets in the project file (issue 24)', () => {
  it.each([
    [
      'an MCP server URL with user:password@',
      `[mcp.servers.x]\nurl = "http://admin:${PASSWORD}@127.0.0.1:9/mcp"`,
      'mcp.servers.x.url',
    ],
    [
      'an MCP server URL with a user only',
      `[mcp.servers.x]\nurl = "https://${PASSWORD}@mcp.example.com/mcp"`,
      'mcp.servers.x.url',
    ],
    [
      'an MCP server URL with ?token=',
      `[mcp.servers.x]\nurl = "https://mcp.example.com/mcp?token=${PASSWORD}"`,
      'mcp.servers.x.url',
    ],
    [
      'a model base URL with ?api-key=',
      `[models.default]\nprovider = "openai"\nmodel = "m"\nbaseUrl = "https://llm.example.com/v1?api-key=${PASSWORD}"`,
      'models.default.baseUrl',
    ],
    [
      'a model base URL with credentials',
      `[models.default]\nprovider = "anthropic"\nmodel = "m"\nbaseUrl = "https://u:${PASSWORD}@llm.example.com"`,
      'models.default.baseUrl',
    ],
    [
      'a server command line with --token=',
      `[mcp.servers.x]\ncommand = "server"\nargs = ["--token=${PASSWORD}"]`,
      'mcp.servers.x.args[0]',
    ],
    [
      'a server command line with --api-key VALUE',
      `[mcp.servers.x]\ncommand = "server"\nargs = ["--api-key", "${PASSWORD}"]`,
      'mcp.servers.x.args[0]',
    ],
    [
      'an identity provider issuer with ?client_secret=',
      `[auth.oidc]\nissuer = "https://login.example.com/?client_secret=${PASSWORD}"\nclientId = "interlock"\nallowed = ["group:approvers"]`,
      'auth.oidc.issuer',
    ],
  ])('refuses %s, naming the key and never the secret (F49)', (_name, toml, path) => {
    const error = refusal(toml);
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.details['problems']).toEqual([expect.objectContaining({ path })]);
    expect(JSON.stringify(error.toJSON())).not.toContain(PASSWORD);
    expect(error.message).not.toContain(PASSWORD);
  });

  it('never prints a password from a file TOML cannot read either (F49)', () => {
    const error = refusal(`[mcp.servers.x]\nurl = "http://admin:${PASSWORD}@host/mcp`);
    expect(error.message).not.toContain(PASSWORD);
  });

  it('accepts URLs without credentials, and masks credentials in any message (F49)', () => {
    expect(() =>
      parseProjectConfig(
        '[mcp.servers.x]\nurl = "https://mcp.example.com/mcp?page=2"\nheadersEnv = { Authorization = "MCP_AUTH" }',
        '/p/interlock.toml',
      ),
    ).not.toThrow();
    expect(withoutUrlCredentials(`fetch http://admin:${PASSWORD}@h/x failed; postgres://u:p@db/x`)).toBe(
      'fetch http://***@h/x failed; postgres://***@db/x',
    );
  });
});
