import type { McpServerOptions, McpTransportOptions } from '../mcp/mcp-client.js';
import type { McpToolPolicy } from '../mcp/mcp-policy.js';
import type { ProjectMcpToolPolicy } from '@interlock/sdk-types';
import type { ApprovalOptions } from '../policy/approval-options.js';
import type { ShellPolicyOptions } from '../policy/shell/index.js';
import type { ModelProvider } from '../llm/model-provider.js';
import { anthropic } from '../llm/anthropic.js';
import { openAICompatible } from '../llm/openai-compatible.js';
import { builtinTools } from '../tools/builtin/index.js';
import type { Tool } from '../tools/define-tool.js';
import type { StoreOptions } from '../persistence/open-store.js';
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
  const store = given.store ?? storeOf(loaded);
  const tools = given.tools ?? toolsOf(loaded);
  const workspace =
    given.workspaceRoot ??
    (config.tools?.workspace === undefined ? undefined : resolveFromConfig(loaded, config.tools.workspace));
  return {
    approval: merged.approval,
    shell: merged.shell,
    ...(store === undefined ? {} : { store }),
    ...(workspace === undefined ? {} : { workspaceRoot: workspace }),
    models: { ...modelsOf(loaded), ...given.models },
    ...(tools === undefined ? {} : { tools }),
  };
}

function storeOf(loaded: LoadedProjectConfig): StoreOptions | undefined {
  const store = loaded.config.store;
  switch (store?.type) {
    case undefined:
      return undefined;
    case 'memory':
      return { type: 'memory' };
    case 'sqlite':
      return {
        type: 'sqlite',
        ...(store.path === undefined ? {} : { path: resolveFromConfig(loaded, store.path) }),
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
    if (model.model === undefined)
      throw invalid(loaded.path, [
        {
          path: `models.${name}.model`,
          message: `an ${model.provider} model needs its model id (${model.provider === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-5'})`,
        },
      ]);
    const apiKey =
      process.env[model.apiKeyEnv ?? (model.provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY')] ||
      undefined;
    const key = apiKey === undefined ? {} : { apiKey };
    models[name] =
      model.provider === 'openai'
        ? openAICompatible({ baseURL: model.baseUrl ?? 'https://api.openai.com/v1', model: model.model, ...key })
        : anthropic({ model: model.model, ...(model.baseUrl === undefined ? {} : { baseURL: model.baseUrl }), ...key });
  }
  return models;
}

function toolsOf(loaded: LoadedProjectConfig): Tool[] | undefined {
  const names = loaded.config.tools?.builtins;
  if (names === undefined) return undefined;
  const unknown = names.filter((name) => !builtinTools.some((tool) => tool.name === name));
  if (unknown.length > 0) {
    throw invalid(loaded.path, [
      {
        path: 'tools.builtins',
        message: `no built-in tool ${unknown.join(', ')}: the built-ins are ${builtinTools.map((tool) => tool.name).join(', ')}`,
      },
    ]);
  }
  return builtinTools.filter((tool) => names.includes(tool.name));
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

function fromEnvironment(loaded: LoadedProjectConfig, name: string, key: string): string {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw invalid(loaded.path, [{ path: key, message: `the environment variable ${name} is not set` }]);
  return value;
}
