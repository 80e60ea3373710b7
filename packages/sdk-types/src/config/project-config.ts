import { z } from 'zod';
import { Duration } from '../workflow/duration.js';

/** Keys no record may have: they would reach an object's prototype. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A record whose keys are names (no prototype keys). */
function namedRecord<T extends z.ZodType>(value: T, what: string) {
  return z.record(z.string().min(1), value).check((context) => {
    for (const key of Object.keys(context.value)) {
      if (PROTOTYPE_KEYS.has(key)) context.issues.push({ code: 'custom', input: key, path: [key], message: `"${key}" cannot name ${what}` });
    }
  });
}

/** The name of an environment variable (the config names where a secret is, never the secret). */
const EnvName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name, in capitals (OPENAI_API_KEY)');

/** `[store]`: where threads are kept. A PostgreSQL URL with a password comes from the environment. */
export const ProjectStoreConfig = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('memory') }),
  z.strictObject({ type: z.literal('sqlite'), path: z.string().min(1).optional(), synchronous: z.enum(['full', 'normal']).optional() }),
  z.strictObject({
    type: z.literal('postgres'),
    /** The variable holding `postgres://user:password@host/db`. */
    urlEnv: EnvName,
    schema: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional(),
  }),
]);

/** `[models.<name>]`: a model LLM nodes can name. */
export const ProjectModelConfig = z.strictObject({
  provider: z.enum(['openai', 'anthropic', 'scripted']),
  /** The provider's model id (`gpt-4o-mini`, `claude-sonnet-4-5`). Required for `openai` and `anthropic`. */
  model: z.string().min(1).optional(),
  /** The server's base URL; default https://api.openai.com/v1 (openai) or https://api.anthropic.com (anthropic). */
  baseUrl: z.url().optional(),
  /** The variable holding the API key. Default OPENAI_API_KEY (openai) or ANTHROPIC_API_KEY (anthropic). */
  apiKeyEnv: EnvName.optional(),
});

/** A declarative shell rule: the program, and optionally a subcommand, flags or arguments that must be present. */
export const ProjectShellRule = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a lower-case id (terraform-destroy)'),
  programs: z.array(z.string().min(1)).min(1),
  reason: z.string().min(1),
  subcommands: z.array(z.string().min(1)).optional(),
  flags: z.array(z.string().min(1)).optional(),
  arguments: z.array(z.string().min(1)).optional(),
});

/** `[approval.shell]`: additions to the built-in shell rules. Built-in rules cannot be switched off from a file. */
export const ProjectShellConfig = z.strictObject({
  safePrograms: z.array(z.string().min(1)).optional(),
  removeSafePrograms: z.array(z.string().min(1)).optional(),
  extraBanned: z.array(ProjectShellRule).optional(),
  extraHighRisk: z.array(ProjectShellRule).optional(),
});

/** `[approval]`: how tool calls are decided (the same fields as `createInterlock({ approval })`). */
export const ProjectApprovalConfig = z.strictObject({
  enabled: z.boolean().optional(),
  mode: z.enum(['default', 'autoEdit', 'yolo']).optional(),
  strictMode: z.boolean().optional(),
  sessionMemory: z.enum(['automatic', 'explicit']).optional(),
  memoryWindow: Duration.optional(),
  toolOverrides: namedRecord(z.union([z.boolean(), z.literal('deny')]), 'a tool').optional(),
  denyRules: z.array(z.string().min(1)).optional(),
  allowRules: z.array(z.string().min(1)).optional(),
  approvalTools: z.array(z.string().min(1)).optional(),
  shell: ProjectShellConfig.optional(),
});

/** `[approvers]`: who may answer which workflows (the web app), and separation of duties. */
export const ProjectApproversConfig = z.strictObject({
  /** Workflow id → approver names; a workflow not listed is open to every approver. */
  workflows: namedRecord(z.array(z.string().min(1)), 'a workflow').optional(),
  /** Workflow id (or `*`) → the levels whose requests the thread's requester may not answer. */
  separationOfDuties: namedRecord(z.array(z.enum(['LOW', 'MEDIUM', 'HIGH', 'QUESTION'])), 'a workflow').optional(),
});

/**
 * `interlock.toml` (or `.json`): one project file for every surface — the CLI, the web app,
 * workers and `createInterlock({ config })`. Unknown keys, wrong-case values and prototype
 * keys are refused.
 */
export const ProjectConfig = z.strictObject({
  $schema: z.string().optional(),
  store: ProjectStoreConfig.optional(),
  models: namedRecord(ProjectModelConfig, 'a model').optional(),
  tools: z
    .strictObject({
      /** Which built-in tools (default all of them). */
      builtins: z.array(z.string().min(1)).optional(),
      /** The directory the file and shell tools work in, relative to the file. */
      workspace: z.string().min(1).optional(),
    })
    .optional(),
  approval: ProjectApprovalConfig.optional(),
  approvers: ProjectApproversConfig.optional(),
  /** Workflow files or directories of them, relative to the file. */
  workflows: z.array(z.string().min(1)).optional(),
});
export type ProjectConfig = z.infer<typeof ProjectConfig>;
export type ProjectShellRule = z.infer<typeof ProjectShellRule>;
