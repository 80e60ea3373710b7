import { z } from 'zod';
import { Duration } from '../workflow/duration.js';
import { QuorumConfig } from '../tools/approval-quorum.js';
import { RiskLevel, ToolCategory } from '../tools/tool-types.js';
import { EnvName, ProjectAuthConfig, WorkflowApproverRule } from './auth-config.js';

/** Keys no record may have: they would reach an object's prototype. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A record whose keys are names (no prototype keys). */
function namedRecord<T extends z.ZodType>(value: T, what: string) {
  return z.record(z.string().min(1), value).check((context) => {
    for (const key of Object.keys(context.value)) {
      if (PROTOTYPE_KEYS.has(key))
        context.issues.push({ code: 'custom', input: key, path: [key], message: `"${key}" cannot name ${what}` });
    }
  });
}

/** `[store]`: where threads are kept. A PostgreSQL URL with a password comes from the environment. */
export const ProjectStoreConfig = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('memory') }),
  z.strictObject({
    type: z.literal('sqlite'),
    path: z.string().min(1).optional(),
    synchronous: z.enum(['full', 'normal']).optional(),
  }),
  z.strictObject({
    type: z.literal('postgres'),
    /** The variable holding `postgres://user:password@host/db`. */
    urlEnv: EnvName,
    /** The schema of the tables (default: the database's current one); its job queue's, `<schema>_jobs`, must fit PostgreSQL's 63 characters. */
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/)
      .max(58)
      .optional(),
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
  /** `[approval.quorum]`: N-of-M approvals for risky calls (F51). */
  quorum: QuorumConfig.optional(),
});

/** `[approvers]`: who may answer which workflows (the web app), and separation of duties. */
export const ProjectApproversConfig = z.strictObject({
  /**
   * Workflow id → who may answer it: approver names and `group:<name>`, for every level or per
   * level (F51); a workflow not listed is open to every approver.
   */
  workflows: namedRecord(WorkflowApproverRule, 'a workflow').optional(),
  /** Workflow id (or `*`) → the levels whose requests the thread's requester may not answer. */
  separationOfDuties: namedRecord(z.array(z.enum(['LOW', 'MEDIUM', 'HIGH', 'QUESTION'])), 'a workflow').optional(),
});

/** Where a connector listens for a platform's webhooks (HTTP transports). */
const ListenConfig = {
  /** Default 127.0.0.1. */
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  path: z
    .string()
    .regex(/^\/[A-Za-z0-9/_.-]*$/, 'a URL path such as /slack/events')
    .optional(),
};

/** A platform user id → the approver name it is (as in the approvers file). */
const PlatformApprovers = namedRecord(z.string().min(1), 'a platform user');

/** `[chat.slack]`: Slack as an approval channel (F57). Secrets by environment variable name only. */
export const ProjectSlackConfig = z.strictObject({
  /** `http` (events posted to a public URL, signed) or `socket` (Socket Mode, no public URL). */
  transport: z.enum(['http', 'socket']),
  botTokenEnv: EnvName,
  /** For `http`: the signing secret's variable. */
  signingSecretEnv: EnvName.optional(),
  /** For `socket`: the app-level token's variable. */
  appTokenEnv: EnvName.optional(),
  approvers: PlatformApprovers,
  /** Slack's Web API base URL (a proxy). Default https://slack.com/api/. */
  apiUrl: z.url().optional(),
  perMinute: z.number().int().min(1).optional(),
  ...ListenConfig,
});

/** `[chat.whatsapp]`: WhatsApp (the Cloud API) as an approval channel (F57). */
export const ProjectWhatsAppConfig = z.strictObject({
  phoneNumberId: z.string().regex(/^\d{1,30}$/, 'the phone number id (digits)'),
  accessTokenEnv: EnvName,
  appSecretEnv: EnvName,
  verifyTokenEnv: EnvName,
  approvers: PlatformApprovers,
  /** Sent for an approval outside the 24-hour window; without it such an approval is refused. */
  approvalTemplate: z.strictObject({ name: z.string().min(1), language: z.string().min(2) }).optional(),
  /** The Graph API base URL with its version. Default https://graph.facebook.com/v21.0/. */
  apiUrl: z.url().optional(),
  perMinute: z.number().int().min(1).optional(),
  ...ListenConfig,
});

/** `[chat.feishu]`: Feishu / Lark as an approval channel (F57). */
export const ProjectFeishuConfig = z.strictObject({
  /** `http` (card-action and event callbacks, signed: `encryptKeyEnv` required) or `long-connection` (no public URL). */
  transport: z.enum(['http', 'long-connection']),
  appId: z.string().regex(/^cli_[0-9a-zA-Z]{1,64}$/, 'the app id (cli_…)'),
  appSecretEnv: EnvName,
  /** For `http`: the encrypt key's variable (the callbacks' verification key). */
  encryptKeyEnv: EnvName.optional(),
  /** The Verification Token's variable: when named, every event and callback must carry the token (either transport). */
  verificationTokenEnv: EnvName.optional(),
  approvers: PlatformApprovers,
  /** `https://open.feishu.cn` (default) or `https://open.larksuite.com`. */
  domain: z.url().optional(),
  perMinute: z.number().int().min(1).optional(),
  ...ListenConfig,
});

/** `[chat]`: the chat workflow and the messaging platforms its chats are shown on. */
export const ProjectChatConfig = z.strictObject({
  /** The workflow a platform conversation's chat runs (a worker must serve it in a deployment). */
  workflow: z.string().min(1).optional(),
  slack: ProjectSlackConfig.optional(),
  feishu: ProjectFeishuConfig.optional(),
  whatsapp: ProjectWhatsAppConfig.optional(),
});

/**
 * How an MCP server's tools are decided. What is set here is a floor: the server's own
 * annotations (untrusted hints) may make a tool stricter, never looser.
 */
export const ProjectMcpToolPolicy = z.strictObject({
  category: ToolCategory.optional(),
  risk: RiskLevel.optional(),
  /** Safe to run again after a crash left its outcome unknown (an `idempotentHint: false` overrides it). */
  idempotent: z.boolean().optional(),
  /** Show each result to a person before the model sees it (F13). */
  resultApproval: z.boolean().optional(),
});

/**
 * `[mcp.servers.<name>]`: an MCP server whose tools Interlock offers as `mcp__<name>__<tool>`.
 * Either `command` (stdio) or `url` (Streamable HTTP). Secrets come from the environment:
 * `env` names the variables the server process gets, `headersEnv` maps a header to the
 * variable holding its value.
 */
export const ProjectMcpServerConfig = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** Variables passed to the server process from Interlock's environment (besides PATH, HOME and the like). */
    env: z.array(EnvName).optional(),
    /** The server process's working directory, relative to the file. Default: the file's directory. */
    cwd: z.string().min(1).optional(),
    url: z.url().optional(),
    headersEnv: namedRecord(EnvName, 'a header').optional(),
    /** The longest a call may take before it ends as TIMEOUT. Default 60s. */
    timeout: Duration.refine(
      (ms) => ms > 0,
      'an MCP call needs a timeout above 0 (a hung server must not hold a thread)',
    ).optional(),
    /** Per tool (its name on the server), on top of the server's settings. */
    tools: namedRecord(ProjectMcpToolPolicy, 'a tool').optional(),
    ...ProjectMcpToolPolicy.shape,
  })
  .check((context) => {
    const { command, url, args, env, cwd, headersEnv } = context.value;
    if ((command === undefined) === (url === undefined)) {
      context.issues.push({
        code: 'custom',
        input: context.value,
        message: 'an MCP server has either `command` (stdio) or `url` (Streamable HTTP)',
      });
    }
    if (url !== undefined && (args ?? env ?? cwd) !== undefined) {
      context.issues.push({
        code: 'custom',
        input: context.value,
        message: '`args`, `env` and `cwd` are for a stdio server (`command`), not `url`',
      });
    }
    if (command !== undefined && headersEnv !== undefined) {
      context.issues.push({
        code: 'custom',
        input: context.value,
        path: ['headersEnv'],
        message: '`headersEnv` is for a Streamable HTTP server (`url`)',
      });
    }
  });

/**
 * `[telemetry]`: OpenTelemetry traces and metrics exported over OTLP/HTTP by `interlock-web`
 * and `interlock worker` (F59). Headers (an API key) come from the environment.
 */
export const ProjectTelemetryConfig = z.strictObject({
  /** The collector's base URL: `http://127.0.0.1:4318` (traces go to `/v1/traces`, metrics to `/v1/metrics`). */
  endpoint: z.url(),
  /** `service.name` of the process's spans and metrics. Default: `interlock-web`, `interlock-worker`. */
  serviceName: z.string().min(1).max(200).optional(),
  /** A header → the variable holding its value (`{ authorization = "OTLP_TOKEN" }`). */
  headersEnv: namedRecord(EnvName, 'a header').optional(),
  /** How often metrics are exported. Default 60s. */
  metricsInterval: Duration.refine((ms) => ms >= 100, 'at least 100ms').optional(),
});

/**
 * `[receipts]`: approval receipts (F63), a signed record of exactly which call was approved,
 * handed to the tool and its service with each call that runs. The signing key is never in
 * this file: it is generated in the store, or given to a process by `INTERLOCK_RECEIPT_KEY`.
 */
export const ProjectReceiptsConfig = z.strictObject({
  /** Issue receipts. Default true. */
  enabled: z.boolean().optional(),
  /** How long a receipt is valid, from 1s to 24h. Default 5m. */
  ttl: Duration.refine(
    (ms) => ms >= 1_000 && ms <= 86_400_000 && ms % 1_000 === 0,
    'whole seconds, from 1s to 24h',
  ).optional(),
  /** The issuer (`iss`) receipts name: the deployment (`https://interlock.example.com`). Default `interlock`. */
  issuer: z.string().min(1).max(200).optional(),
});

/** An MCP server name: lower case, no `__` (it separates the parts of `mcp__<server>__<tool>`). */
const McpServerName = /^[a-z0-9](?:[a-z0-9-]|_(?!_))*$/;

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
  auth: ProjectAuthConfig.optional(),
  chat: ProjectChatConfig.optional(),
  mcp: z
    .strictObject({
      servers: namedRecord(ProjectMcpServerConfig, 'an MCP server')
        .check((context) => {
          for (const name of Object.keys(context.value)) {
            if (!McpServerName.test(name)) {
              context.issues.push({
                code: 'custom',
                input: name,
                path: [name],
                message: `MCP server name "${name}": lower-case letters, digits, - and single _ only`,
              });
            }
          }
        })
        .optional(),
    })
    .optional(),
  /** Workflow files or directories of them, relative to the file. */
  workflows: z.array(z.string().min(1)).optional(),
  telemetry: ProjectTelemetryConfig.optional(),
  receipts: ProjectReceiptsConfig.optional(),
});
export type ProjectConfig = z.infer<typeof ProjectConfig>;
export type ProjectReceiptsConfig = z.infer<typeof ProjectReceiptsConfig>;
export type ProjectChatConfig = z.infer<typeof ProjectChatConfig>;
export type ProjectSlackConfig = z.infer<typeof ProjectSlackConfig>;
export type ProjectWhatsAppConfig = z.infer<typeof ProjectWhatsAppConfig>;
export type ProjectFeishuConfig = z.infer<typeof ProjectFeishuConfig>;
export type ProjectShellRule = z.infer<typeof ProjectShellRule>;
export type ProjectMcpServerConfig = z.infer<typeof ProjectMcpServerConfig>;
export type ProjectMcpToolPolicy = z.infer<typeof ProjectMcpToolPolicy>;
export type ProjectTelemetryConfig = z.infer<typeof ProjectTelemetryConfig>;
