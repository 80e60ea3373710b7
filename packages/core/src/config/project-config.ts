import { access, readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ProjectConfig, type ProjectMcpToolPolicy, type ProjectShellRule } from '@interlock/sdk-types';
import type { McpServerOptions, McpTransportOptions } from '../mcp/mcp-client.js';
import type { McpToolPolicy } from '../mcp/mcp-policy.js';
import { InterlockError } from '../errors/interlock-error.js';
import { parseJsonStrictly } from '../json/parse-json-strictly.js';
import type { ApprovalOptions } from '../policy/approval-options.js';
import type { ShellPolicyOptions } from '../policy/shell/index.js';
import type { ShellRule } from '../policy/shell/shell-rule.js';
import type { ModelProvider } from '../llm/model-provider.js';
import { anthropic } from '../llm/anthropic.js';
import { openAICompatible } from '../llm/openai-compatible.js';
import { builtinTools } from '../tools/builtin/index.js';
import type { Tool } from '../tools/define-tool.js';
import type { StoreOptions } from '../persistence/open-store.js';

/** The names a project file is found under, in the directory a command runs in. */
export const PROJECT_CONFIG_FILES = ['interlock.toml', 'interlock.json'] as const;

/** A project file as read: where it is (paths in it are relative to its directory) and what it says. */
export interface LoadedProjectConfig {
  path: string;
  directory: string;
  config: ProjectConfig;
}

/** One problem or warning about a project file, with the key it is about. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** The project file of `directory` (`interlock.toml`, then `interlock.json`), or undefined. */
export async function findProjectConfig(directory: string): Promise<string | undefined> {
  for (const name of PROJECT_CONFIG_FILES) {
    const candidate = join(directory, name);
    if (
      await access(candidate).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/**
 * Reads and checks a project file (TOML or JSON). Unknown keys, wrong-case values, prototype
 * keys, a key given twice and secrets written into the file are refused.
 *
 * @throws InterlockError INVALID_OPTIONS listing every problem with its key (`details.problems`).
 */
export async function loadProjectConfig(path: string): Promise<LoadedProjectConfig> {
  const absolute = resolve(path);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new InterlockError('INVALID_OPTIONS', `cannot read the project file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { path: absolute, directory: dirname(absolute), config: parseProjectConfig(text, absolute) };
}

/** Parses the text of a project file named `path` (its extension says TOML or JSON). */
export function parseProjectConfig(text: string, path: string): ProjectConfig {
  const extension = extname(path).toLowerCase();
  if (extension !== '.toml' && extension !== '.json')
    throw invalid(path, [{ path: '(file)', message: 'a project file ends in .toml or .json' }]);
  let data: unknown;
  try {
    data = extension === '.toml' ? parseToml(text) : parseJsonStrictly(text);
  } catch (error) {
    throw invalid(path, [
      { path: '(file)', message: `not valid ${extension === '.toml' ? 'TOML' : 'JSON'}: ${(error as Error).message}` },
    ]);
  }
  const prototypeKey = prototypeKeyIn(data);
  if (prototypeKey !== undefined)
    throw invalid(path, [
      { path: prototypeKey, message: 'a prototype key (__proto__, constructor, prototype) cannot name anything' },
    ]);
  const parsed = ProjectConfig.safeParse(data);
  if (!parsed.success) {
    throw invalid(
      path,
      parsed.error.issues.map((issue) => ({
        path: issue.path.join('.') || '(root)',
        message:
          issue.code === 'unrecognized_keys'
            ? `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`
            : issue.message,
      })),
    );
  }
  return parsed.data;
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The dotted path of the first own prototype key in parsed data (checked before zod copies it away). */
function prototypeKeyIn(data: unknown): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: data, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    if (typeof value !== 'object' || value === null) continue;
    for (const key of Object.keys(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (PROTOTYPE_KEYS.has(key)) return at;
      stack.push({ value: (value as Record<string, unknown>)[key], path: at });
    }
  }
  return undefined;
}

function invalid(path: string, problems: ConfigIssue[]): InterlockError {
  return new InterlockError(
    'INVALID_OPTIONS',
    `${path} is not a valid project file: ${problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`,
    {
      details: { file: path, problems },
    },
  );
}

/** A layer of approval settings, named for messages (`interlock.toml`, `--mode`, `createInterlock`). */
export interface ApprovalLayer {
  name: string;
  approval?: ApprovalOptions;
  shell?: ShellPolicyOptions;
}

/**
 * Merges approval settings, most specific last (built-in defaults → project file → the
 * workflow's own toolApproval → code and command-line flags). Later layers set the mode and
 * the like, and add rules; a deny can never be loosened: deny rules, banned and high-risk
 * shell rules accumulate, a tool an earlier layer denies stays denied, and a later layer
 * cannot switch approval off under an earlier layer's denies.
 *
 * @throws InterlockError INVALID_OPTIONS when a later layer tries to loosen a deny.
 */
export function mergeApprovalLayers(layers: readonly ApprovalLayer[]): {
  approval: ApprovalOptions;
  shell: ShellPolicyOptions;
} {
  const approval: ApprovalOptions = {};
  const shell: ShellPolicyOptions = {};
  const denied = new Map<string, string>();
  let denyingLayer: string | undefined;
  for (const layer of layers) {
    const given = layer.approval ?? {};
    if (given.enabled === false && denyingLayer !== undefined) {
      throw new InterlockError(
        'INVALID_OPTIONS',
        `${layer.name}: approval.enabled = false would switch off the denies of ${denyingLayer}: remove them there instead`,
      );
    }
    for (const key of ['enabled', 'mode', 'strictMode', 'sessionMemory', 'memoryWindow', 'onToolApprove'] as const) {
      if (given[key] !== undefined) (approval as Record<string, unknown>)[key] = given[key];
    }
    for (const key of ['denyRules', 'allowRules', 'approvalTools'] as const) {
      if (given[key] !== undefined) approval[key] = [...(approval[key] ?? []), ...given[key]];
    }
    for (const [tool, override] of Object.entries(given.toolOverrides ?? {})) {
      const earlier = denied.get(tool);
      if (earlier !== undefined && override !== 'deny') {
        throw new InterlockError(
          'INVALID_OPTIONS',
          `${layer.name}: toolOverrides.${tool} = ${String(override)} would loosen the deny of ${earlier}`,
        );
      }
      approval.toolOverrides = { ...approval.toolOverrides, [tool]: override };
      if (override === 'deny') denied.set(tool, layer.name);
    }
    if ((given.denyRules?.length ?? 0) > 0 || denied.size > 0 || (layer.shell?.extraBanned?.length ?? 0) > 0)
      denyingLayer ??= layer.name;
    for (const key of [
      'safePrograms',
      'removeSafePrograms',
      'extraBanned',
      'extraHighRisk',
      'disabledRules',
    ] as const) {
      const values = layer.shell?.[key];
      if (values !== undefined)
        (shell as Record<string, unknown>)[key] = [
          ...((shell[key] as readonly unknown[] | undefined) ?? []),
          ...values,
        ];
    }
    for (const key of ['maxLength', 'maxDepth', 'timeBudgetMs'] as const) {
      if (layer.shell?.[key] !== undefined) shell[key] = layer.shell[key];
    }
  }
  return { approval, shell };
}

/** The approval and shell settings a project file gives, as a layer. */
export function approvalLayerOf(loaded: LoadedProjectConfig): ApprovalLayer {
  const { approval } = loaded.config;
  if (approval === undefined) return { name: loaded.path };
  const { shell, ...rest } = approval;
  return {
    name: loaded.path,
    approval: withoutUndefined(rest) as ApprovalOptions,
    ...(shell === undefined
      ? {}
      : {
          shell: {
            ...(shell.safePrograms === undefined ? {} : { safePrograms: shell.safePrograms }),
            ...(shell.removeSafePrograms === undefined ? {} : { removeSafePrograms: shell.removeSafePrograms }),
            ...(shell.extraBanned === undefined ? {} : { extraBanned: shell.extraBanned.map(shellRuleOf) }),
            ...(shell.extraHighRisk === undefined ? {} : { extraHighRisk: shell.extraHighRisk.map(shellRuleOf) }),
          },
        }),
  };
}

function shellRuleOf(rule: ProjectShellRule): ShellRule {
  const when = {
    ...(rule.subcommands === undefined ? {} : { subcommands: rule.subcommands }),
    ...(rule.flags === undefined ? {} : { flags: rule.flags }),
    ...(rule.arguments === undefined ? {} : { arguments: rule.arguments }),
  };
  return {
    id: rule.id,
    programs: rule.programs,
    reason: rule.reason,
    ...(Object.keys(when).length === 0 ? {} : { when }),
  };
}

/** A path of the project file (the workspace, a workflow, the SQLite file), resolved against its directory. */
export function resolveFromConfig(loaded: LoadedProjectConfig, path: string): string {
  return resolve(loaded.directory, path);
}

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

/** The object without its undefined fields (zod leaves absent optional keys out, types may not know). */
function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
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
 * The file's `[mcp.servers]` as {@link McpServerOptions}: secrets read from the variables the
 * file names, a stdio server run in the file's directory unless `cwd` says otherwise.
 *
 * @throws InterlockError INVALID_OPTIONS for a variable that is not set.
 */
export function mcpServersOf(loaded: LoadedProjectConfig): McpServerOptions[] {
  return Object.entries(loaded.config.mcp?.servers ?? {}).map(([name, server]) => {
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
    return {
      name,
      transport,
      ...policy(server),
      ...(server.timeout === undefined ? {} : { timeoutMs: server.timeout }),
      ...(server.tools === undefined
        ? {}
        : { tools: Object.fromEntries(Object.entries(server.tools).map(([tool, entry]) => [tool, policy(entry)])) }),
    };
  });
}

function fromEnvironment(loaded: LoadedProjectConfig, name: string, key: string): string {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw invalid(loaded.path, [{ path: key, message: `the environment variable ${name} is not set` }]);
  return value;
}
