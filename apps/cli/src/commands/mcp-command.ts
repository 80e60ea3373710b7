import { parseArgs } from 'node:util';
import {
  BoundedStdioServerTransport,
  createApprovalMcpServer,
  createApprovalService,
  isLoopbackHost,
} from '@interlock/core';
import { Duration } from '@interlock/sdk-types';
import { parseApprovalMode } from '../approval-mode-option.js';
import { ExitCode } from '../exit-code.js';
import { MCP_HELP } from '../help-text.js';
import { projectConfig } from '../project-config-option.js';
import { parseStoreOption } from '../store-option.js';
import { serveHttp } from '../mcp/mcp-http-server.js';
import { listServers } from '../mcp/mcp-list.js';
import { UsageError } from '../usage-error.js';
import { resolveWorkspace } from '../workspace-option.js';
import { withUsageErrors } from './with-usage-errors.js';

/** What `interlock mcp` does: list the project file's servers, or serve as the approval service. */
export const MCP_SUBCOMMANDS = ['list', 'serve'] as const;

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
        'token-env': { type: 'string' },
        'allow-host': { type: 'string', multiple: true },
        'allow-origin': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(MCP_HELP);
    return ExitCode.completed;
  }
  const [subcommand, ...extra] = positionals;
  if (subcommand === MCP_SUBCOMMANDS[0]) return listServers(extra, values.store, values.json === true);
  if (extra.length > 0)
    throw new UsageError(`interlock mcp ${subcommand ?? ''} takes no other arguments, not ${extra.join(' ')}`, 'mcp');
  if (subcommand === MCP_SUBCOMMANDS[1]) {
    return serve({
      store: values.store,
      http: values.http,
      host: values.host ?? '127.0.0.1',
      token: tokenFrom(values['token-env']),
      allowedHosts: values['allow-host'] ?? [],
      allowedOrigins: values['allow-origin'] ?? [],
      mode: parseApprovalMode(values.mode, 'mcp'),
      workspaceRoot: await resolveWorkspace(values.workspace, 'mcp'),
      progressIntervalMs: parseMilliseconds(values['progress-interval']),
      answerTimeoutMs: parseAnswerTimeout(values['answer-timeout']),
    });
  }
  throw new UsageError(
    `interlock mcp needs ${MCP_SUBCOMMANDS.join(' or ')}${subcommand === undefined ? '' : `, not ${JSON.stringify(subcommand)}`}`,
    'mcp',
  );
}

interface ServeOptions {
  store: string | undefined;
  http: string | undefined;
  host: string;
  token: string | undefined;
  allowedHosts: string[];
  allowedOrigins: string[];
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
  // Beyond loopback, anyone who can reach the port could ask the approvers: a token is required (issue 24).
  if (port !== undefined && !isLoopbackHost(options.host) && options.token === undefined)
    throw new UsageError(
      `--host ${options.host} listens beyond this machine: give a bearer token with --token-env VARIABLE (the variable holding it)`,
      'mcp',
    );
  const project = projectConfig();
  // Decides only: no tool of its own, none of the file's MCP servers started (issue 24).
  const worker = await createApprovalService({
    ...(project === undefined ? {} : { config: project }),
    store: store.options,
    mode: options.mode,
    workspaceRoot: options.workspaceRoot,
    ...(options.answerTimeoutMs === undefined ? {} : { answerTimeoutMs: options.answerTimeoutMs }),
  });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const serverOptions = {
    ...(options.progressIntervalMs === undefined ? {} : { progressIntervalMs: options.progressIntervalMs }),
    onThread: (threadId: string, kind: string) => log(`interlock mcp: ${kind} ${threadId}`),
  };
  // Listening for a stop before saying it serves: a client may stop it the moment it reads that.
  const stopAsked = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  let stop: () => Promise<void>;
  if (port === undefined) {
    const server = await createApprovalMcpServer(worker.interlock, serverOptions);
    // A message over 10 MiB is refused and the next one read: the server never goes deaf (issue 24).
    await server.connect(new BoundedStdioServerTransport());
    stop = () => server.close();
    log(`interlock mcp: serving approval_prompt and ask_user on stdio, store ${store.label}`);
    // The client closing stdin ends the session: requests still waiting are cancelled.
    process.stdin.once('end', () => process.kill(process.pid, 'SIGTERM'));
  } else {
    const http = await serveHttp(worker.interlock, serverOptions, {
      host: options.host,
      port,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      token: options.token,
    });
    stop = () => http.close();
    log(
      `interlock mcp: serving approval_prompt and ask_user on http://${options.host}:${http.port}/mcp, store ${store.label}`,
    );
  }
  await stopAsked;
  await stop();
  await worker.stop();
  return ExitCode.completed;
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

/** The bearer token from the environment variable `--token-env` names: never from the command line, where `ps` shows it. */
function tokenFrom(variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  const token = process.env[variable];
  if (token === undefined || token.length < 16)
    throw new UsageError(
      `--token-env ${variable}: the variable ${token === undefined ? 'is not set' : 'holds fewer than 16 characters'}; put a long random token in it`,
      'mcp',
    );
  return token;
}
