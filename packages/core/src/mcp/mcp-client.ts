/**
 * MCP servers' tools under Interlock's approvals (issue 17, F47): each server is connected
 * with the official SDK (stdio or Streamable HTTP), its tools listed, and each offered as
 * `mcp__<server>__<tool>` — arguments checked against the tool's own JSON Schema, category
 * and risk mapped from the configuration and the server's annotations (mcp-policy.ts), and
 * the definition pinned: the first approval keeps its hash, a changed one is asked about
 * again (tool-call-pipeline.ts).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { RECEIPT_META_KEY } from '@interlock/receipts';
import type { Client, ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { InterlockError } from '../errors/interlock-error.js';
import { canonicalJson } from '../policy/canonical-arguments.js';
import type { Tool } from '../tools/define-tool.js';
import { mapMcpTool, type McpAnnotations, type McpToolPolicy } from './mcp-policy.js';
import { linearSchemaValidator } from './tool-schema-validator.js';
import { describeBlock, quotedName } from './content-blocks.js';
import { withoutUrlCredentials } from '../config/secrets-in-file.js';

/** How to reach an MCP server. Secrets are resolved by the caller (the project file names their variables). */
export type McpTransportOptions =
  | { type: 'stdio'; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { type: 'http'; url: string; headers?: Record<string, string> };

/** An MCP server whose tools Interlock offers. */
export interface McpServerOptions extends McpToolPolicy {
  /** Lower case; its tools are named `mcp__<name>__<tool>`. */
  name: string;
  transport: McpTransportOptions;
  /** The longest one call may take before it ends as TIMEOUT. Default 60 000 ms. */
  timeoutMs?: number;
  /** The longest connecting and listing the tools may take. Default 30 000 ms. */
  connectTimeoutMs?: number;
  /** Per tool (its name on the server), on top of the server's settings. */
  tools?: Record<string, McpToolPolicy>;
}

/** What defines an MCP tool for an approver; its hash pins it. */
export interface McpToolDefinition {
  server: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: McpAnnotations;
}

/** One tool as listed by a server, with what Interlock made of it. */
export interface McpListedTool {
  server: string;
  definition: McpToolDefinition;
  tool: Tool;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** How much of a server's tool listing Interlock reads: a server that offers page after page is cut off. */
export const LISTING_LIMITS = { maxPages: 100, maxTools: 1_000 } as const;
const SERVER_NAME = /^[a-z0-9](?:[a-z0-9-]|_(?!_))*$/;

/** The name a server's tool has in Interlock. */
export const mcpToolName = (server: string, tool: string): string => `mcp__${server}__${tool}`;

/** SHA-256 of an MCP tool's definition (server, name, description, schema, annotations). */
export function mcpDefinitionHash(definition: McpToolDefinition): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/**
 * One MCP server: connected on first use, reconnected on the next call after it died.
 * Calls that do not answer within the timeout end as `TOOL_TIMEOUT`; a server that
 * cannot be reached or dies gives `MCP_UNAVAILABLE`; a result flagged `isError` is a
 * failed call (`TOOL_CALL_FAILED`). Nothing here waits forever.
 */
export class McpServerConnection {
  private connected: Promise<Client> | undefined;
  private closed = false;

  constructor(readonly options: McpServerOptions) {
    if (!SERVER_NAME.test(options.name)) {
      throw new InterlockError(
        'INVALID_OPTIONS',
        `MCP server name "${options.name}": use lower-case letters, digits, - and single _ (it becomes part of mcp__<server>__<tool>)`,
      );
    }
  }

  /**
   * Connects (once) and lists the server's tools, as Interlock tools. Bounded (issue 24): at
   * most {@link LISTING_LIMITS} pages and tools, and all of it within the connect timeout.
   */
  async listTools(): Promise<McpListedTool[]> {
    const client = await this.client();
    const listed: McpListedTool[] = [];
    const deadline = Date.now() + this.connectTimeoutMs;
    let cursor: string | undefined;
    let pages = 0;
    do {
      if ((pages += 1) > LISTING_LIMITS.maxPages || Date.now() > deadline)
        throw new InterlockError(
          'MCP_UNAVAILABLE',
          `MCP server "${this.options.name}" kept offering more pages of tools (${pages - 1} pages, ${listed.length} tools): Interlock stops listing after ${LISTING_LIMITS.maxPages} pages or ${this.connectTimeoutMs} ms`,
        );
      const page = await this.guard(
        client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.connectTimeoutMs }),
        'listing its tools',
      );
      for (const remote of page.tools) listed.push(this.toListedTool(remote));
      if (listed.length > LISTING_LIMITS.maxTools)
        throw new InterlockError(
          'MCP_UNAVAILABLE',
          `MCP server "${this.options.name}" offers more than ${LISTING_LIMITS.maxTools} tools: Interlock lists at most that many`,
        );
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return listed;
  }

  /** The per-tool floors of the configuration that name no tool this server offers (a typo, or a look-alike name). */
  unmatchedFloors(listed: readonly McpListedTool[]): string[] {
    const offered = new Set(listed.map((entry) => entry.definition.name));
    return Object.keys(this.options.tools ?? {}).filter((name) => !offered.has(name));
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = await this.connected?.catch(() => undefined);
    this.connected = undefined;
    await client?.close().catch(() => undefined);
  }

  private get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  }

  private client(): Promise<Client> {
    if (this.closed)
      return Promise.reject(
        new InterlockError('MCP_UNAVAILABLE', `MCP server "${this.options.name}" was closed with its Interlock`),
      );
    this.connected ??= this.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }

  private async connect(): Promise<Client> {
    const [{ Client: McpClient }, transport] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      this.transport(),
    ]);
    // Output schemas too are compiled one by one, with linear-time patterns.
    const client = new McpClient(
      { name: 'interlock', version: '1' },
      { jsonSchemaValidator: linearSchemaValidator as unknown as NonNullable<ClientOptions['jsonSchemaValidator']> },
    );
    // A server that dies drops the connection: the next call connects again.
    transport.onclose = () => {
      if (this.connected !== undefined) this.connected = undefined;
    };
    const timeout = new Promise<never>((_, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new InterlockError(
              'MCP_UNAVAILABLE',
              `MCP server "${this.options.name}" did not connect within ${this.connectTimeoutMs} ms`,
            ),
          ),
        this.connectTimeoutMs,
      );
      timer.unref();
    });
    try {
      await Promise.race([client.connect(transport, { timeout: this.connectTimeoutMs }), timeout]);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw unavailable(this.options.name, 'connecting', error);
    }
    return client;
  }

  private async transport(): Promise<Transport> {
    const { transport } = this.options;
    if (transport.type === 'stdio') {
      const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      return new StdioClientTransport({
        command: transport.command,
        args: transport.args ?? [],
        // Only what the configuration names reaches the server, besides PATH, HOME and the like.
        env: { ...getDefaultEnvironment(), ...transport.env },
        ...(transport.cwd === undefined ? {} : { cwd: transport.cwd }),
        stderr: 'ignore',
      });
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(new URL(transport.url), {
      requestInit: { headers: transport.headers ?? {} },
    });
  }

  private async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    receipt?: string,
  ): Promise<unknown> {
    const client = await this.client();
    const timeout = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // The approval receipt travels in the request's _meta (F63): the server checks it before it acts.
    const meta = receipt === undefined ? {} : { _meta: { [RECEIPT_META_KEY]: receipt } };
    let result;
    try {
      result = await client.callTool({ name: tool, arguments: args, ...meta }, undefined, {
        signal,
        timeout,
        maxTotalTimeout: timeout,
      });
    } catch (error) {
      if (isTimeout(error)) {
        throw new InterlockError(
          'TOOL_TIMEOUT',
          `MCP server "${this.options.name}" did not answer ${tool} within ${timeout} ms: it may still be running it`,
        );
      }
      throw unavailable(this.options.name, `calling ${tool}`, error);
    }
    const content = Array.isArray(result.content) ? result.content.map(describeBlock) : [];
    const text = content.join('\n');
    if (result.isError === true)
      throw new InterlockError('TOOL_CALL_FAILED', text || `${tool} failed on MCP server "${this.options.name}"`);
    if (result.structuredContent !== undefined && content.length === 0) return result.structuredContent;
    return text;
  }

  private toListedTool(remote: {
    name: string;
    description?: string | undefined;
    inputSchema: Record<string, unknown>;
    annotations?: { [K in keyof McpAnnotations]?: boolean | undefined } | undefined;
  }): McpListedTool {
    const { name: server } = this.options;
    const annotations: McpAnnotations = {};
    for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      const hint = remote.annotations?.[key];
      if (typeof hint === 'boolean') annotations[key] = hint;
    }
    const definition: McpToolDefinition = {
      server,
      name: remote.name,
      description: remote.description ?? '',
      inputSchema: remote.inputSchema,
      annotations,
    };
    const policy = mapMcpTool(annotations, { ...withoutUndefined(this.options), ...this.options.tools?.[remote.name] });
    const { $schema: _dialect, ...jsonSchema } = remote.inputSchema;
    const tool: Tool = {
      name: mcpToolName(server, remote.name),
      description: definition.description,
      parameters: schemaChecked(jsonSchema),
      jsonSchema,
      category: policy.category,
      riskLevel: policy.riskLevel,
      idempotent: policy.idempotent,
      requireResultApproval: policy.requireResultApproval,
      tags: ['mcp', `mcp:${server}`],
      definitionHash: mcpDefinitionHash(definition),
      pinned: { definition: definition as unknown as Record<string, unknown> },
      execute: (args, context) =>
        this.call(remote.name, args as Record<string, unknown>, context.signal, context.receipt),
    };
    return { server, definition, tool };
  }

  private async guard<T>(promise: Promise<T>, doing: string): Promise<T> {
    try {
      return await promise;
    } catch (error) {
      throw unavailable(this.options.name, doing, error);
    }
  }
}

/** Every server's tools, connected together; a server that fails is reported, not fatal to the others. */
export async function connectMcpServers(servers: readonly McpServerOptions[]): Promise<{
  tools: Tool[];
  listed: McpListedTool[];
  /** The servers that could not be started or reached: their tools are not listed. */
  problems: McpServerDown[];
  /** Per-tool floors that name no tool the server offers (issue 24): the tool they meant is decided without them. */
  warnings: { server: string; tool: string; message: string }[];
  close(): Promise<void>;
}> {
  const connections = servers.map((server) => new McpServerConnection(server));
  const results = await Promise.allSettled(connections.map((connection) => connection.listTools()));
  const listed: McpListedTool[] = [];
  const problems: McpServerDown[] = [];
  const warnings: { server: string; tool: string; message: string }[] = [];
  results.forEach((result, index) => {
    const server = servers[index]?.name ?? '';
    if (result.status === 'fulfilled') {
      listed.push(...result.value);
      for (const tool of connections[index]?.unmatchedFloors(result.value) ?? [])
        warnings.push({
          server,
          tool,
          message: `mcp.servers.${server}.tools names ${quotedName(tool)}, which the server does not offer: its floor applies to no tool`,
        });
    } else
      problems.push({
        server,
        message: result.reason instanceof Error ? result.reason.message : String(result.reason),
      });
  });
  return {
    tools: listed.map((entry) => entry.tool),
    listed,
    problems,
    warnings,
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

/** A declared server that could not be started or reached, and why. */
export interface McpServerDown {
  server: string;
  message: string;
}

/**
 * Every server's tools, or undefined when no server is given. A server that cannot be
 * reached takes only its own tools away (issue 24): it is reported in `problems`, warned
 * about on stderr (a process warning, code `INTERLOCK_MCP_SERVER_DOWN`, naming it), and the
 * others are connected.
 * @throws InterlockError INVALID_OPTIONS for two servers of one name.
 */
export async function connectDeclaredMcpServers(
  servers: readonly McpServerOptions[],
): Promise<Awaited<ReturnType<typeof connectMcpServers>> | undefined> {
  if (servers.length === 0) return undefined;
  const names = new Set<string>();
  for (const server of servers) {
    if (names.has(server.name))
      throw new InterlockError(
        'INVALID_OPTIONS',
        `two MCP servers are named "${server.name}": server names must be unique`,
      );
    names.add(server.name);
  }
  const mcp = await connectMcpServers(servers);
  for (const warning of mcp.warnings) process.emitWarning(warning.message, { code: 'INTERLOCK_MCP_FLOOR_UNMATCHED' });
  for (const problem of mcp.problems)
    process.emitWarning(
      `${problem.message}. Its tools (${mcpToolName(problem.server, '…')}) are unavailable here: a call to one is refused with MCP_UNAVAILABLE; everything else works.`,
      { code: 'INTERLOCK_MCP_SERVER_DOWN' },
    );
  return mcp;
}

/** A zod schema that checks a value against an MCP tool's JSON Schema; a schema that does not compile refuses every call. */
function schemaChecked(jsonSchema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const validate = linearSchemaValidator.getValidator(jsonSchema);
  return z.record(z.string(), z.unknown()).superRefine((value, context) => {
    const result = validate(value);
    if (!result.valid)
      context.addIssue({ code: 'custom', message: result.errorMessage ?? "does not match the tool's input schema" });
  });
}

function isTimeout(error: unknown): boolean {
  // The SDK's McpError RequestTimeout (-32001).
  return typeof error === 'object' && error !== null && 'code' in error && error.code === -32001;
}

function unavailable(server: string, doing: string, error: unknown): InterlockError {
  if (error instanceof InterlockError) return error;
  const message = withoutUrlCredentials(error instanceof Error ? error.message : String(error));
  return new InterlockError('MCP_UNAVAILABLE', `MCP server "${server}" failed while ${doing}: ${message}`, {
    cause: error,
  });
}

function withoutUndefined(options: McpServerOptions): McpToolPolicy {
  const policy: McpToolPolicy = {};
  if (options.category !== undefined) policy.category = options.category;
  if (options.riskLevel !== undefined) policy.riskLevel = options.riskLevel;
  if (options.idempotent !== undefined) policy.idempotent = options.idempotent;
  if (options.requireResultApproval !== undefined) policy.requireResultApproval = options.requireResultApproval;
  return policy;
}
