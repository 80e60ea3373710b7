import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { checkHttpRequest, createApprovalMcpServer, type HttpGuardOptions, type Interlock } from '@interlock/core';

/** Who may call the HTTP endpoint besides loopback clients without an Origin (issue 24). */
export interface HttpAccess {
  host: string;
  port: number;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  token: string | undefined;
}

/**
 * Streamable HTTP, stateless: one MCP server per request, closed (and its waits cancelled)
 * when the client goes away. Every request's Host, Origin and bearer token are checked
 * before it is read (`checkHttpRequest`): no web page on another origin, and no name that
 * resolves here by DNS rebinding, reaches the approvers.
 */
export async function serveHttp(
  interlock: Interlock,
  serverOptions: Parameters<typeof createApprovalMcpServer>[1],
  access: HttpAccess,
): Promise<{ port: number; close(): Promise<void> }> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const open = new Set<{ close(): Promise<void> }>();
  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
    const verdict = checkHttpRequest(request.headers, guardOf(access, http.address()));
    if (!verdict.ok) {
      const status = verdict.status;
      response
        .writeHead(status, {
          'content-type': 'application/json',
          ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
        })
        .end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32001, message: verdict.message },
            id: null,
          }),
        );
      request.resume();
      return;
    }
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/mcp') {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'the MCP endpoint is /mcp' } }));
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'this server is stateless: POST to /mcp' },
          id: null,
        }),
      );
      return;
    }
    void (async () => {
      const server = await createApprovalMcpServer(interlock, serverOptions);
      const transport = new StreamableHTTPServerTransport({});
      const session = { close: () => server.close() };
      open.add(session);
      response.once('close', () => {
        open.delete(session);
        void server.close().catch(() => undefined);
      });
      await server.connect(transport);
      await transport.handleRequest(request, response);
    })().catch((error: unknown) => {
      if (!response.headersSent)
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: String(error) }, id: null }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(access.port, access.host, resolve);
  });
  const { port } = guardOf(access, http.address());
  return {
    port,
    close: async () => {
      await Promise.all([...open].map((session) => session.close().catch(() => undefined)));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** What the guard allows, with the port the server really listens on. */
function guardOf(access: HttpAccess, address: ReturnType<Server['address']>): HttpGuardOptions {
  return {
    port: typeof address === 'object' && address !== null ? address.port : access.port,
    bindHost: access.host,
    allowedHosts: access.allowedHosts,
    allowedOrigins: access.allowedOrigins,
    ...(access.token === undefined ? {} : { token: access.token }),
  };
}
