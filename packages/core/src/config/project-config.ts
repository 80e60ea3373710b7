import { access, readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ProjectConfig, type ProjectShellRule } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import { secretsInFile, withoutUrlCredentials } from './secrets-in-file.js';
import { parseJsonStrictly } from '../json/parse-json-strictly.js';
import type { ApprovalOptions } from '../policy/approval-options.js';
import { parseQuorum, stricterQuorum } from '../policy/approval-quorum.js';
import type { ShellPolicyOptions } from '../policy/shell/index.js';
import type { ShellRule } from '../policy/shell/shell-rule.js';

/** The names a project file is found under, in the directory a command runs in. */
export const PROJECT_CONFIG_FILES = ['interlock.toml', 'interlock.json'] as const;

/** A project file as read: where it is (paths in it are relative to its directory) and what it says. */
export interface LoadedProjectConfig {
  path: string;
  directory: string;
  config: ProjectConfig;
}

import type { ConfigIssue } from './config-issue.js';

export type { ConfigIssue } from './config-issue.js';

/**
 * The project file of `directory` (`interlock.toml` or `interlock.json`), or undefined.
 *
 * @throws InterlockError INVALID_OPTIONS when both are there: which one counts would be a
 *   guess, and every command must read the same file.
 */
export async function findProjectConfig(directory: string): Promise<string | undefined> {
  const found: string[] = [];
  for (const name of PROJECT_CONFIG_FILES) {
    const candidate = join(directory, name);
    if (
      await access(candidate).then(
        () => true,
        () => false,
      )
    )
      found.push(candidate);
  }
  if (found.length > 1)
    throw new InterlockError(
      'INVALID_OPTIONS',
      `both ${PROJECT_CONFIG_FILES.join(' and ')} are in ${directory}: keep one (or name the one to read with --config FILE)`,
      { details: { files: found } },
    );
  return found[0];
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
  const data = readProjectConfigData(text, path);
  const parsed = ProjectConfig.safeParse(data);
  if (!parsed.success) throw invalid(path, schemaIssues(parsed.error.issues));
  const secrets = secretsInFile(parsed.data);
  if (secrets.length > 0) throw invalid(path, secrets);
  return parsed.data;
}

/** The issues of the schema, each with its key: an unknown key says which. */
export function schemaIssues(
  issues: readonly { path: PropertyKey[]; message: string; code: string; keys?: string[] }[],
): ConfigIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message:
      issue.code === 'unrecognized_keys' && issue.keys !== undefined
        ? `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`
        : issue.message,
  }));
}

/**
 * The data of a project file's text, before its schema: TOML or JSON by the extension of
 * `path`, a key given twice (JSON) and prototype keys refused.
 *
 * @throws InterlockError INVALID_OPTIONS for text that does not parse, or a prototype key.
 */
export function readProjectConfigData(text: string, path: string): unknown {
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
  return data;
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

/** The INVALID_OPTIONS error that lists every problem of the project file at `path` (credentials in URLs masked). */
export function invalid(path: string, found: ConfigIssue[]): InterlockError {
  const problems = found.map((problem) => ({ ...problem, message: withoutUrlCredentials(problem.message) }));
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
    // A later layer may ask for more approvers, never fewer (F51). One that does not read is kept as given, to be refused.
    if (given.quorum !== undefined) {
      const [earlier, later] = [parseQuorum(approval.quorum), parseQuorum(given.quorum)];
      approval.quorum =
        later === undefined || earlier === undefined ? given.quorum : (stricterQuorum(earlier, later) ?? given.quorum);
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

/** The object without its undefined fields (zod leaves absent optional keys out, types may not know). */
export function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
