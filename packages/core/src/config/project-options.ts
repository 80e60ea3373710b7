import type { McpServerOptions, McpTransportOptions } from '../mcp/mcp-client.js';
import type { McpToolPolicy } from '../mcp/mcp-policy.js';
import type { ProjectMcpToolPolicy, ProjectReceiptsConfig } from '@interlock/sdk-types';
import type { ReceiptOptions } from '../receipts/receipt-options.js';
import type { ApprovalOptions } from '../policy/approval-options.js';
import type { ShellPolicyOptions } from '../policy/shell/index.js';
import type { ModelProvider } from '../llm/model-provider.js';
import { anthropic } from '../llm/anthropic.js';
import { openAICompatible } from '../llm/openai-compatible.js';
import { builtinTools } from '../tools/builtin/index.js';
import type { Tool } from '../tools/define-tool.js';
import { resolveStoreOptions } from '../interlock-store.js';
import { DEFAULT_SQLITE_PATH, type StoreOptions } from '../persistence/open-store.js';
import {
  approvalLayerOf,
  invalid,
  mergeApprovalLayers,
  resolveFromConfig,
  withoutUndefined,
  type LoadedProjectConfig,
} from './project-config.js';

/** What a project file sets of `createInterlock`'s options, before the code's own (a later layer). */
export interface ProjectOptions {
  approval?: ApprovalOptions;
  shell?: ShellPolicyOptions;
  store?: StoreOptions;
  workspaceRoot?: string;
  models?: Record<string, ModelProvider>;
  tools?: Tool[];
  receipts?: ReceiptOptions;
}

/**
 * The options a project file gives, merged under `given` (the code's own, which come
 * later): approval and shell by {@link mergeApprovalLayers}, the rest only where `given`
 * leaves it out. Secrets are read from the environment variables the file names.
 *
 * @throws InterlockError INVALID_OPTIONS for a missing environment variable, an unknown built-in tool, or a loosened deny.
 */
export function optionsFromProjectConfig(
  loaded: LoadedProjectConfig,
  given: ProjectOptions & { approvalLayerName?: string },
): ProjectOptions {
  const { config } = loaded;
  const merged = mergeApprovalLayers([
    approvalLayerOf(loaded),
    {
      name: given.approvalLayerName ?? 'createInterlock options',
      ...(given.approval === undefined ? {} : { approval: given.approval }),
      ...(given.shell === undefined ? {} : { shell: given.shell }),
    },
  ]);
  const store = given.store ?? storeFromProjectConfig(loaded);
  // The code's own tools are the final list; without them, the file's built-ins (all, unless `[tools] builtins` says).
  const tools = given.tools ?? toolsOf(loaded);
  const workspace =
    given.workspaceRoot ??
    (config.tools?.workspace === undefined ? undefined : resolveFromConfig(loaded, config.tools.workspace));
  const receipts = given.receipts ?? receiptsOf(config.receipts);
  return {
    approval: merged.approval,
    shell: merged.shell,
    ...(receipts === undefined ? {} : { receipts }),
    ...(store === undefined ? {} : { store }),
    ...(workspace === undefined ? {} : { workspaceRoot: workspace }),
    models: { ...modelsOf(loaded), ...given.models },
    tools,
  };
}

/** `[receipts]` as `createInterlock`'s receipt options (the key comes from the environment, never the file). */
function receiptsOf(section: ProjectReceiptsConfig | undefined): ReceiptOptions | undefined {
  if (section === undefined) return undefined;
  return {
    ...(section.enabled === undefined ? {} : { enabled: section.enabled }),
    ...(section.ttl === undefined ? {} : { ttlSeconds: section.ttl / 1000 }),
    ...(section.issuer === undefined ? {} : { issuer: section.issuer }),
  };
}

/**
 * The store `[store]` of a project file names, as every surface reads it (a SQLite path
 * relative to the file, a PostgreSQL URL from the variable `urlEnv` names, with `schema`), or
 * undefined when the file names none.
 *
 * @throws InterlockError INVALID_OPTIONS when the variable is not set, or the URL's `?schema=` contradicts `schema`.
 */
export function storeFromProjectConfig(loaded: LoadedProjectConfig): StoreOptions | undefined {
  const store = storeOf(loaded);
  if (store === undefined) return undefined;
  try {
    return resolveStoreOptions(store);
  } catch (error) {
    throw invalid(loaded.path, [{ path: 'store', message: error instanceof Error ? error.message : String(error) }]);
  }
}

function storeOf(loaded: LoadedProjectConfig): StoreOptions | undefined {
  const store = loaded.config.store;
  switch (store?.type) {
    case undefined:
      return undefined;
    case 'memory':
      return { type: 'memory' };
    case 'sqlite':
      // The default file too is beside the project file, for every surface.
      return {
        type: 'sqlite',
        path: resolveFromConfig(loaded, store.path ?? DEFAULT_SQLITE_PATH),
        ...(store.synchronous === undefined ? {} : { synchronous: store.synchronous }),
      };
    case 'postgres':
      return {
        type: 'postgres',
        url: fromEnvironment(loaded, store.urlEnv, 'store.urlEnv'),
        ...(store.schema === undefined ? {} : { schema: store.schema }),
      };
  }
}

function modelsOf(loaded: LoadedProjectConfig): Record<string, ModelProvider> {
  const models: Record<string, ModelProvider> = {};
  for (const [name, model] of Object.entries(loaded.config.models ?? {})) {
    // A scripted model is a script: the app that has one passes it in `models` (the CLI's demo does).
    if (model.provider === 'scripted') continue;
    models[name] = modelFromProjectConfig(loaded, name);
  }
  return models;
}

/** The official server of each provider: a key is required there. */
const OFFICIAL_BASE_URL = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' } as const;

/** The variable a model's key is read from: `apiKeyEnv`, else the provider's own. */
export function apiKeyVariableOf(model: { provider: 'openai' | 'anthropic'; apiKeyEnv?: string | undefined }): string {
  return model.apiKeyEnv ?? (model.provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY');
}

/**
 * The model `[models.<name>]` of a project file describes, built the way every surface builds
 * it: its provider, model id, `baseUrl`, and the key read from the variable `apiKeyEnv` names
 * (else `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`). `baseUrl` in `override` replaces the file's
 * (`--base-url`). `requireKey` refuses a model of a provider's own server whose key variable
 * is not set, at once rather than at its first call.
 *
 * @throws InterlockError INVALID_OPTIONS for a model that is not there, is `scripted`, has no
 *   model id, or (with `requireKey`) whose key is not set.
 */
export function modelFromProjectConfig(
  loaded: LoadedProjectConfig,
  name: string,
  override: { baseUrl?: string; requireKey?: boolean } = {},
  environment: NodeJS.ProcessEnv = process.env,
): ModelProvider {
  const model = loaded.config.models?.[name];
  const provider = model?.provider;
  if (model === undefined || provider === undefined || provider === 'scripted')
    throw invalid(loaded.path, [
      { path: `models.${name}`, message: `no openai or anthropic model named ${name} in the file` },
    ]);
  if (model.model === undefined)
    throw invalid(loaded.path, [
      {
        path: `models.${name}.model`,
        message: `an ${provider} model needs its model id (${provider === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-5'})`,
      },
    ]);
  const variable = apiKeyVariableOf({ provider, apiKeyEnv: model.apiKeyEnv });
  const apiKey = environment[variable] || undefined;
  const baseUrl = override.baseUrl ?? model.baseUrl;
  if (
    override.requireKey === true &&
    apiKey === undefined &&
    (baseUrl ?? OFFICIAL_BASE_URL[provider]) === OFFICIAL_BASE_URL[provider]
  )
    throw invalid(loaded.path, [
      {
        path: `models.${name}.apiKeyEnv`,
        message: `the key of ${provider}:${model.model} is read from ${variable}, which is not set: set it (or give baseUrl for a server that needs none)`,
      },
    ]);
  const key = apiKey === undefined ? {} : { apiKey };
  return provider === 'openai'
    ? openAICompatible({ baseURL: baseUrl ?? OFFICIAL_BASE_URL.openai, model: model.model, ...key })
    : anthropic({ model: model.model, ...(baseUrl === undefined ? {} : { baseURL: baseUrl }), ...key });
}

/** The built-in tools the file says exist: `[tools] builtins`, all of them when it says nothing. */
function toolsOf(loaded: LoadedProjectConfig): Tool[] {
  const names = loaded.config.tools?.builtins;
  if (names === undefined) return [...builtinTools];
  const unknown = unknownBuiltins(names);
  if (unknown.length > 0) {
    throw invalid(loaded.path, [{ path: 'tools.builtins', message: unknownBuiltinsMessage(unknown) }]);
  }
  return builtinTools.filter((tool) => names.includes(tool.name));
}

/** The names that are no built-in tool. */
export function unknownBuiltins(names: readonly string[]): string[] {
  return names.filter((name) => !builtinTools.some((tool) => tool.name === name));
}

export function unknownBuiltinsMessage(unknown: readonly string[]): string {
  return `no built-in tool ${unknown.join(', ')}: the built-ins are ${builtinTools.map((tool) => tool.name).join(', ')}`;
}

/**
 * The file's `[mcp.servers]` (those `include` keeps) as {@link McpServerOptions}: secrets read
 * from the variables the file names, a stdio server run in the file's directory unless `cwd`
 * says otherwise. Nothing is started.
 *
 * @throws InterlockError INVALID_OPTIONS for a variable that is not set.
 */
export function mcpServersOf(
  loaded: LoadedProjectConfig,
  include: (name: string) => boolean = () => true,
): McpServerOptions[] {
  return Object.entries(loaded.config.mcp?.servers ?? {}).flatMap(([name, server]) => {
    if (!include(name)) return [];
    const key = `mcp.servers.${name}`;
    const transport: McpTransportOptions =
      server.command !== undefined
        ? {
            type: 'stdio',
            command: server.command,
            args: server.args ?? [],
            env: Object.fromEntries(
              (server.env ?? []).map((variable) => [variable, fromEnvironment(loaded, variable, `${key}.env`)]),
            ),
            cwd: resolveFromConfig(loaded, server.cwd ?? '.'),
          }
        : {
            type: 'http',
            url: server.url ?? '',
            headers: Object.fromEntries(
              Object.entries(server.headersEnv ?? {}).map(([header, variable]) => [
                header,
                fromEnvironment(loaded, variable, `${key}.headersEnv.${header}`),
              ]),
            ),
          };
    const policy = (entry: ProjectMcpToolPolicy): McpToolPolicy =>
      withoutUndefined({
        category: entry.category,
        riskLevel: entry.risk,
        idempotent: entry.idempotent,
        requireResultApproval: entry.resultApproval,
      }) as McpToolPolicy;
    return [
      {
        name,
        transport,
        ...policy(server),
        ...(server.timeout === undefined ? {} : { timeoutMs: server.timeout }),
        ...(server.tools === undefined
          ? {}
          : { tools: Object.fromEntries(Object.entries(server.tools).map(([tool, entry]) => [tool, policy(entry)])) }),
      },
    ];
  });
}

export function fromEnvironment(loaded: LoadedProjectConfig, name: string, key: string): string {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw invalid(loaded.path, [{ path: key, message: `the environment variable ${name} is not set` }]);
  return value;
}
