import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ProjectConfig } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import { checkExpression } from '../expressions/expressions.js';
import { resolveStoreOptions } from '../interlock-store.js';
import { resolveApprovalOptions } from '../policy/approval-options.js';
import { createShellClassifier } from '../policy/shell/index.js';
import { safeListRefusal } from '../policy/shell/shell-policy-options.js';
import { builtinTools } from '../tools/builtin/index.js';
import { secretsInFile } from './secrets-in-file.js';
import {
  approvalLayerOf,
  readProjectConfigData,
  resolveFromConfig,
  schemaIssues,
  type ConfigIssue,
  type LoadedProjectConfig,
} from './project-config.js';
import { apiKeyVariableOf, unknownBuiltins, unknownBuiltinsMessage } from './project-options.js';

/** Every problem of a project file in one look, and its warnings. */
export interface ProjectConfigCheck {
  /** What a command would refuse the file for (each with its key). */
  errors: ConfigIssue[];
  /** What works here but may not where it matters (a model key not set on this machine). */
  warnings: ConfigIssue[];
  /** The file as read, unless it could not be read at all. */
  loaded?: LoadedProjectConfig;
}

/**
 * Checks a project file the way the commands read it, and lists every problem at once
 * (issue 28): what the schema refuses, then — each on its own, so one does not hide the
 * next — the variables the file names that are not set (`[store] urlEnv`, MCP servers'
 * `env` and `headersEnv`), models without an id, unknown built-in tools, a workspace that is
 * not a directory, deny and allow rules that do not parse, tools the rules name that do not
 * exist, safe-list entries and shell rules that are refused, workflow files that are not
 * there. It starts nothing: no store is opened, no MCP server started, no model called.
 *
 * @param environment - where the variables the file names are looked up.
 */
export async function checkProjectConfigFile(
  path: string,
  environment: NodeJS.ProcessEnv = process.env,
): Promise<ProjectConfigCheck> {
  const absolute = resolve(path);
  let data: unknown;
  try {
    data = readProjectConfigData(await readFile(absolute, 'utf8'), absolute);
  } catch (error) {
    return { errors: issuesOf(error), warnings: [] };
  }
  // What the schema refuses, and — the refused entries set aside — what the rest would do.
  const { config, issues: schemaProblems } = readLeniently(data);
  // A secret written into the file is refused wherever the file is read.
  const issues = config === undefined ? schemaProblems : [...schemaProblems, ...secretsInFile(config)];
  if (issues.length === 0 && config !== undefined) {
    const loaded = { path: absolute, directory: dirname(absolute), config };
    return { ...(await checkProjectConfig(loaded, environment)), loaded };
  }
  if (config === undefined) return { errors: issues, warnings: [] };
  const rest = await checkProjectConfig({ path: absolute, directory: dirname(absolute), config }, environment);
  return { errors: [...issues, ...rest.errors], warnings: rest.warnings };
}

/**
 * The file's schema issues, and the config the file would be with the entries they are about
 * taken out (unknown keys dropped, wrong values unset), so the other checks can look at the rest.
 */
function readLeniently(data: unknown): { config: ProjectConfig | undefined; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  let current: unknown = structuredClone(data);
  for (let round = 0; round < 50; round += 1) {
    const parsed = ProjectConfig.safeParse(current);
    if (parsed.success) return { config: parsed.data, issues };
    for (const issue of schemaIssues(parsed.error.issues))
      if (!issues.some((seen) => seen.path === issue.path && seen.message === issue.message)) issues.push(issue);
    const pruned = structuredClone(current);
    for (const issue of parsed.error.issues) {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : undefined;
      prune(pruned, issue.path, keys);
    }
    dropPruned(pruned);
    if (JSON.stringify(pruned) === JSON.stringify(current)) return { config: undefined, issues };
    current = pruned;
  }
  return { config: undefined, issues };
}

const PRUNED = Symbol('pruned');

/** Removes the array entries `prune` marked, everywhere in `data`. */
function dropPruned(data: unknown): void {
  if (typeof data !== 'object' || data === null) return;
  if (Array.isArray(data)) {
    for (let index = data.length - 1; index >= 0; index -= 1)
      if (data[index] === PRUNED) data.splice(index, 1);
      else dropPruned(data[index]);
    return;
  }
  for (const value of Object.values(data)) dropPruned(value);
}

/** Takes out what an issue is about: the unknown `keys` of the object at `path`, else the value at `path` (or its parent's). */
function prune(data: unknown, path: readonly PropertyKey[], keys: readonly string[] | undefined): void {
  let at: unknown = data;
  for (const segment of path.slice(0, keys === undefined ? -1 : path.length)) {
    if (typeof at !== 'object' || at === null) return;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  if (typeof at !== 'object' || at === null) return;
  const container = at as Record<PropertyKey, unknown>;
  if (keys !== undefined) {
    for (const key of keys) Reflect.deleteProperty(container, key);
    return;
  }
  const last = path.at(-1);
  if (last === undefined) return;
  // An array keeps its indices until every issue of this round is pruned (see dropPruned).
  if (Array.isArray(container) && typeof last === 'number') container[last] = PRUNED;
  else if (Object.hasOwn(container, last)) Reflect.deleteProperty(container, last);
  // A value that is missing (a required key): the entry that lacks it goes.
  else if (path.length > 1) prune(data, path.slice(0, -1), undefined);
}

/** {@link checkProjectConfigFile} for a file already read. */
export async function checkProjectConfig(
  loaded: LoadedProjectConfig,
  environment: NodeJS.ProcessEnv = process.env,
): Promise<ProjectConfigCheck> {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const { config } = loaded;
  const variable = (name: string, key: string) => {
    if (!environment[name]) errors.push({ path: key, message: `the environment variable ${name} is not set` });
  };
  if (config.store?.type === 'postgres') {
    const { urlEnv, schema } = config.store;
    variable(urlEnv, 'store.urlEnv');
    const url = environment[urlEnv];
    if (url)
      try {
        resolveStoreOptions({ type: 'postgres', url, ...(schema === undefined ? {} : { schema }) });
      } catch (error) {
        errors.push({ path: 'store', message: `${urlEnv}: ${error instanceof Error ? error.message : String(error)}` });
      }
  }
  for (const [name, server] of Object.entries(config.mcp?.servers ?? {})) {
    for (const entry of server.env ?? []) variable(entry, `mcp.servers.${name}.env`);
    for (const [header, entry] of Object.entries(server.headersEnv ?? {}))
      variable(entry, `mcp.servers.${name}.headersEnv.${header}`);
  }
  for (const [name, model] of Object.entries(config.models ?? {})) {
    if (model.provider === 'scripted') continue;
    if (model.model === undefined) {
      errors.push({ path: `models.${name}.model`, message: `an ${model.provider} model needs its model id` });
      continue;
    }
    const key = apiKeyVariableOf({ provider: model.provider, apiKeyEnv: model.apiKeyEnv });
    if (!environment[key] && model.baseUrl === undefined)
      warnings.push({
        path: `models.${name}.apiKeyEnv`,
        message: `${key} is not set here: a process that runs threads (interlock run, interlock worker, your service) needs it`,
      });
  }
  const builtins = config.tools?.builtins;
  const unknown = unknownBuiltins(builtins ?? []);
  if (unknown.length > 0) errors.push({ path: 'tools.builtins', message: unknownBuiltinsMessage(unknown) });
  if (config.tools?.workspace !== undefined) {
    const workspace = resolveFromConfig(loaded, config.tools.workspace);
    if ((await stat(workspace).catch(() => undefined))?.isDirectory() !== true)
      errors.push({ path: 'tools.workspace', message: `${workspace} is not a directory` });
  }
  errors.push(...approvalProblems(loaded, builtins), ...(await shellProblems(loaded)));
  for (const [index, entry] of (config.workflows ?? []).entries()) {
    const file = resolveFromConfig(loaded, entry);
    if ((await stat(file).catch(() => undefined)) === undefined)
      errors.push({ path: `workflows[${index}]`, message: `${file} does not exist` });
  }
  return { errors, warnings };
}

/** The approval rules: each deny and allow rule parsed, the tools named, no allow rule that allows everything. */
function approvalProblems(loaded: LoadedProjectConfig, builtins: readonly string[] | undefined): ConfigIssue[] {
  const { approval } = approvalLayerOf(loaded);
  const problems: ConfigIssue[] = [];
  for (const key of ['denyRules', 'allowRules'] as const) {
    for (const [index, rule] of (approval?.[key] ?? []).entries()) {
      const problem = checkExpression(rule, ['tool', 'args', 'category', 'risk']);
      if (problem !== undefined)
        problems.push({ path: `approval.${key}[${index}]`, message: `\`${rule}\` is not a valid rule: ${problem}` });
    }
  }
  const tools = new Set(builtins ?? builtinTools.map((tool) => tool.name));
  const servers = Object.keys(loaded.config.mcp?.servers ?? {});
  // An MCP server's tools are known once it runs; the name's server is what can be checked here.
  const exists = (name: string): string | true =>
    tools.has(name) || servers.some((server) => name.startsWith(`mcp__${server}__`))
      ? true
      : `no tool is named "${name}" (the built-ins the file keeps, or mcp__<server>__<tool> of a server it declares)`;
  try {
    resolveApprovalOptions(approval ?? {}, exists);
  } catch (error) {
    problems.push(...issuesOf(error));
  }
  return problems;
}

/** The file's shell additions: each safe-list entry, then the rules together. */
async function shellProblems(loaded: LoadedProjectConfig): Promise<ConfigIssue[]> {
  const shell = approvalLayerOf(loaded).shell ?? {};
  const problems: ConfigIssue[] = [];
  for (const [index, program] of (shell.safePrograms ?? []).entries()) {
    const name = typeof program === 'string' ? program : program.program;
    const refusal = safeListRefusal(name);
    if (refusal !== undefined)
      problems.push({
        path: `approval.shell.safePrograms[${index}]`,
        message: `${refusal}: it cannot be on the safe list`,
      });
  }
  try {
    await createShellClassifier({ ...shell, safePrograms: [] });
  } catch (error) {
    problems.push({ path: 'approval.shell', message: error instanceof Error ? error.message : String(error) });
  }
  return problems;
}

/** An error's problems as issues with their keys (`details.problems`), else its message. */
export function issuesOf(error: unknown): ConfigIssue[] {
  if (InterlockError.is(error)) {
    const problems = error.details['problems'];
    if (Array.isArray(problems) && problems.length > 0)
      return problems.map((problem: unknown): ConfigIssue => {
        if (typeof problem === 'string') {
          // `approval.allowRules[0] \`true\` allows every call: …`: the key, then what is wrong with it.
          const keyed = /^([A-Za-z_][\w.[\]-]*)(?::\s*|\s+)([\s\S]*)$/.exec(problem);
          return keyed === null
            ? { path: '(file)', message: problem }
            : { path: keyed[1] ?? '(file)', message: keyed[2] ?? problem };
        }
        const entry = problem as { path?: unknown; server?: unknown; message?: unknown };
        const path =
          typeof entry.path === 'string'
            ? entry.path
            : typeof entry.server === 'string'
              ? `mcp.servers.${entry.server}`
              : '(file)';
        return { path, message: typeof entry.message === 'string' ? entry.message : JSON.stringify(problem) };
      });
    return [{ path: '(file)', message: error.message }];
  }
  return [{ path: '(file)', message: error instanceof Error ? error.message : String(error) }];
}
