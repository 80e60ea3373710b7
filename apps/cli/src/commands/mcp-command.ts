import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import {
  agentTool,
  approvalServerWorkflows,
  connectMcpServers,
  createApprovalMcpServer,
  createWorker,
  holdUntilAnsweredElsewhere,
  MCP_CHANNEL,
  mcpServersOf,
  openStore,
  pinState,
  ToolPins,
  type Interlock,
} from '@interlock/core';
import { Duration } from '@interlock/sdk-types';
import { parseApprovalMode } from '../approval-mode-option.js';
import { ExitCode } from '../exit-code.js';
import { MCP_HELP } from '../help-text.js';
import { projectConfig } from '../project-config-option.js';
import { parseStoreOption } from '../store-option.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { UsageError } from '../usage-error.js';
import { resolveWorkspace } from '../workspace-option.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock mcp list|serve` (issue 17): the project file's MCP servers, their tools as
 * Interlock decides them and whether each definition is the one approved; and Interlock as
 * an MCP server other agents ask for permission.
 *
 * @throws UsageError for a wrong command line.
 */
export async function mcpCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('mcp', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        store: { type: 'string' },
        json: { type: 'boolean' },
        http: { type: 'string' },
        host: { type: 'string' },
        mode: { type: 'string' },
        workspace: { type: 'string' },
        'progress-interval': { type: 'string' },
        'answer-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(MCP_HELP);
    return ExitCode.completed;
  }
  const [subcommand, ...extra] = positionals;
  if (extra.length > 0)
    throw new UsageError(`interlock mcp ${subcommand ?? ''} takes no other arguments, not ${extra.join(' ')}`, 'mcp');
  if (subcommand === 'list') return listServers(values.store, values.json === true);
  if (subcommand === 'serve') {
    return serve({
      store: values.store,
      http: values.http,
      host: values.host ?? '127.0.0.1',
      mode: parseApprovalMode(values.mode, 'mcp'),
      workspaceRoot: await resolveWorkspace(values.workspace, 'mcp'),
      progressIntervalMs: parseMilliseconds(values['progress-interval']),
      answerTimeoutMs: parseAnswerTimeout(values['answer-timeout']),
    });
  }
  throw new UsageError(
    `interlock mcp needs list or serve${subcommand === undefined ? '' : `, not ${JSON.stringify(subcommand)}`}`,
    'mcp',
  );
}

/** Lists every server of the project file, its tools with their category, risk and pin state. */
async function listServers(storeSpec: string | undefined, json: boolean): Promise<ExitCode> {
  const project = projectConfig();
  const servers = project === undefined ? [] : mcpServersOf(project);
  if (servers.length === 0) {
    throw new UsageError(
      'no MCP servers: declare them in interlock.toml under [mcp.servers.<name>] (see docs/mcp.md)',
      'mcp',
    );
  }
  const store = await openStore(parseStoreOption(storeSpec, 'mcp').options);
  const mcp = await connectMcpServers(servers);
  try {
    const pins = await new ToolPins(store).all();
    const rows = mcp.listed.map(({ server, tool }) => {
      const { state } = pinState(tool, pins[tool.name]);
      return {
        server,
        tool: tool.name,
        category: tool.category,
        risk: tool.riskLevel,
        idempotent: tool.idempotent === true,
        pin: state === 'same' ? 'pinned' : state,
        definitionHash: tool.definitionHash,
      };
    });
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ servers: servers.map((server) => server.name), tools: rows, problems: mcp.problems })}\n`,
      );
    } else {
      const style = createTerminalStyle(colourWanted(process.stdout));
      for (const server of servers) {
        const problem = mcp.problems.find((entry) => entry.server === server.name);
        process.stdout.write(
          `${style.bold(server.name)}${problem === undefined ? '' : style.red(`  unreachable: ${problem.message}`)}\n`,
        );
        for (const row of rows.filter((entry) => entry.server === server.name)) {
          const pin =
            row.pin === 'changed'
              ? style.red('changed since approved')
              : row.pin === 'pinned'
                ? 'pinned'
                : style.dim('not yet approved');
          process.stdout.write(
            `  ${row.tool}  ${row.category} · ${row.risk}${row.idempotent ? ' · idempotent' : ''} · ${pin}\n`,
          );
        }
      }
    }
    return mcp.problems.length > 0 ? ExitCode.failed : ExitCode.completed;
  } finally {
    await mcp.close();
    await store.close();
  }
}

interface ServeOptions {
  store: string | undefined;
  http: string | undefined;
  host: string;
  mode: 'default' | 'autoEdit' | 'yolo';
  workspaceRoot: string;
  progressIntervalMs: number | undefined;
  answerTimeoutMs: number | undefined;
}

/**
 * Serves the approval tools over stdio (default) or Streamable HTTP (`--http PORT`). The
 * process is also a worker for the two workflows behind them, so an answer given in the
 * web inbox of a deployment comes back here.
 */
async function serve(options: ServeOptions): Promise<ExitCode> {
  const store = parseStoreOption(options.store, 'mcp');
  if (store.options.type !== 'sqlite' && store.options.type !== 'postgres') {
    throw new UsageError(
      `interlock mcp serve keeps its questions where people can answer them: --store sqlite:<path> or postgres://…, not ${store.label}`,
      'mcp',
    );
  }
  const port = options.http === undefined ? undefined : Number(options.http);
  if (port !== undefined && (!Number.isSafeInteger(port) || port < 0 || port > 65_535))
    throw new UsageError(`--http ${JSON.stringify(options.http)} is not a port number`, 'mcp');
  const project = projectConfig();
  const worker = await createWorker({
    ...(project === undefined ? {} : { config: project }),
    store: store.options,
    workflows: approvalServerWorkflows(
      options.answerTimeoutMs === undefined ? {} : { answerTimeoutMs: options.answerTimeoutMs },
    ),
    tools: [],
    toolFallback: (name) => agentTool(name, options.workspaceRoot),
    handlers: { [MCP_CHANNEL]: holdUntilAnsweredElsewhere },
    approval: { mode: options.mode },
    workspaceRoot: options.workspaceRoot,
  });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const serverOptions = {
    ...(options.progressIntervalMs === undefined ? {} : { progressIntervalMs: options.progressIntervalMs }),
    onThread: (threadId: string, kind: string) => log(`interlock mcp: ${kind} ${threadId}`),
  };
  let stop: () => Promise<void>;
  if (port === undefined) {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const server = await createApprovalMcpServer(worker.interlock, serverOptions);
    await server.connect(new StdioServerTransport());
    stop = () => server.close();
    log(`interlock mcp: serving approval_prompt and ask_user on stdio, store ${store.label}`);
    // The client closing stdin ends the session: requests still waiting are cancelled.
    process.stdin.once('end', () => process.kill(process.pid, 'SIGTERM'));
  } else {
    const http = await serveHttp(worker.interlock, serverOptions, options.host, port);
    stop = () => http.close();
    log(
      `interlock mcp: serving approval_prompt and ask_user on http://${options.host}:${http.port}/mcp, store ${store.label}`,
    );
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await stop();
  await worker.stop();
  return ExitCode.completed;
}

/** Streamable HTTP, stateless: one MCP server per request, closed (and its waits cancelled) when the client goes away. */
async function serveHttp(
  interlock: Interlock,
  serverOptions: Parameters<typeof createApprovalMcpServer>[1],
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const open = new Set<{ close(): Promise<void> }>();
  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
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
    http.listen(port, host, resolve);
  });
  const address = http.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : port,
    close: async () => {
      await Promise.all([...open].map((session) => session.close().catch(() => undefined)));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** `--answer-timeout`: how long a person has to answer (`10m`, `2h`; `0`: until the agent stops waiting). */
function parseAnswerTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Duration.safeParse(/^\d+$/.test(value) ? Number(value) : value);
  if (!parsed.success)
    throw new UsageError(
      `--answer-timeout ${JSON.stringify(value)} is not a duration: give one such as 10m or 2h (0: until the agent stops waiting)`,
      'mcp',
    );
  return parsed.data;
}

function parseMilliseconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms < 100)
    throw new UsageError(
      `--progress-interval ${JSON.stringify(value)} is not a number of milliseconds (at least 100)`,
      'mcp',
    );
  return ms;
}
