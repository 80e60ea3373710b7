import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { parseJsonStrictly } from '@interlock/core';
import { WorkflowApproverRule } from '@interlock/sdk-types';
import { dirname } from 'node:path';
import {
  createToken,
  hashToken,
  type Approver,
  type DutyLevel,
  type SeparationOfDuties,
  type WorkflowApprovers,
} from './approvers.js';

/** Where `interlock-web` keeps its approvers unless `--approvers` says otherwise. */
export const DEFAULT_APPROVERS_PATH = '.interlock/web-approvers.json';

/** The name of the approver created at first start. */
export const FIRST_APPROVER = 'admin';

/** The approvers file as read. */
export interface ApproversConfig {
  approvers: Approver[];
  workflowApprovers: WorkflowApprovers;
  separationOfDuties: SeparationOfDuties;
  /** Set only when this call created the file (first start) or a new token: print it once, never log it. */
  newToken?: string;
}

/**
 * Reads the approvers file, creating it at first start with one approver (`admin`) whose
 * token is returned once as `newToken`; only its SHA-256 is written. With `rotate`, the
 * first approver gets a new token.
 *
 * File format: `{ "approvers": [{ "name": "ci", "tokenSha256": "<hex>", "groups"?: ["deployers"] } | { "name": "bob", "token": "<plain>" }],
 * "workflows": { "<workflowId>": ["alice", "group:deployers"] | { "HIGH": [...], "default": [...] } } }`.
 *
 * @throws Error naming the file and what is wrong with it.
 */
export async function loadApprovers(
  path: string,
  options: { rotate?: boolean; create?: boolean } = {},
): Promise<ApproversConfig> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text === undefined) {
    if (options.create === false) throw new Error(`${path} is gone: put it back (nobody can sign in without it)`);
    return createFirstApprover(path, {});
  }
  const config = parseApproversFile(text, path);
  if (!options.rotate) return config;
  return {
    ...(await createFirstApprover(
      path,
      config.workflowApprovers,
      config.approvers.filter((approver) => approver.name !== FIRST_APPROVER),
      config.separationOfDuties,
    )),
  };
}

async function createFirstApprover(
  path: string,
  workflowApprovers: WorkflowApprovers,
  others: Approver[] = [],
  separationOfDuties: SeparationOfDuties = {},
): Promise<ApproversConfig> {
  const token = createToken();
  const approvers = [{ name: FIRST_APPROVER, tokenSha256: hashToken(token) }, ...others];
  await mkdir(dirname(path), { recursive: true });
  const file = {
    approvers,
    workflows: workflowApprovers,
    ...(Object.keys(separationOfDuties).length === 0 ? {} : { separationOfDuties }),
  };
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  return { approvers, workflowApprovers, separationOfDuties, newToken: token };
}

/** Reads the text of an approvers file; plain `token`s are hashed at once. */
export function parseApproversFile(text: string, path: string): ApproversConfig {
  let data: unknown;
  try {
    data = parseJsonStrictly(text);
  } catch (error) {
    throw new Error(
      `${path} is not valid JSON (${(error as Error).message}): fix it or delete it to create a new first-start token`,
      { cause: error },
    );
  }
  if (!isRecord(data) || !Array.isArray(data['approvers']))
    throw new Error(`${path} needs an "approvers" list: [{ "name": "alice", "tokenSha256": "<hex>" }]`);
  const approvers = data['approvers'].map((entry: unknown, index): Approver => {
    if (!isRecord(entry) || typeof entry['name'] !== 'string' || entry['name'] === '')
      throw new Error(`${path}: approvers[${index}] needs a "name"`);
    const groups = entry['groups'] ?? [];
    if (!Array.isArray(groups) || !groups.every((group) => typeof group === 'string' && group !== ''))
      throw new Error(`${path}: approvers[${index}].groups must be a list of group names`);
    const named = { name: entry['name'], ...(groups.length === 0 ? {} : { groups: groups as string[] }) };
    if (typeof entry['tokenSha256'] === 'string' && /^[0-9a-f]{64}$/i.test(entry['tokenSha256']))
      return { ...named, tokenSha256: entry['tokenSha256'].toLowerCase() };
    if (typeof entry['token'] === 'string' && entry['token'].length >= 16)
      return { ...named, tokenSha256: hashToken(entry['token']) };
    throw new Error(
      `${path}: approvers[${index}] needs "tokenSha256" (64 hex digits) or a "token" of at least 16 characters`,
    );
  });
  const workflows = data['workflows'] ?? {};
  if (!isRecord(workflows)) throw new Error(`${path}: "workflows" maps workflow ids to lists of approver names`);
  const workflowApprovers: Record<string, WorkflowApproverRule> = {};
  for (const [workflowId, names] of Object.entries(workflows)) {
    const rule = WorkflowApproverRule.safeParse(names);
    if (!rule.success)
      throw new Error(
        `${path}: workflows.${workflowId} must be a list of approver names and "group:<name>", or lists per level ({ "HIGH": [...], "default": [...] })`,
      );
    workflowApprovers[workflowId] = rule.data;
  }
  return { approvers, workflowApprovers, separationOfDuties: parseDuties(data['separationOfDuties'] ?? {}, path) };
}

const DUTY_LEVELS: readonly DutyLevel[] = ['LOW', 'MEDIUM', 'HIGH', 'QUESTION'];

/** `"separationOfDuties": { "<workflowId>" | "*": ["HIGH", …] }`. */
function parseDuties(value: unknown, path: string): SeparationOfDuties {
  if (!isRecord(value))
    throw new Error(`${path}: "separationOfDuties" maps workflow ids (or "*") to lists of ${DUTY_LEVELS.join(', ')}`);
  const duties: Record<string, DutyLevel[]> = {};
  for (const [workflowId, levels] of Object.entries(value)) {
    if (
      !Array.isArray(levels) ||
      !levels.every((level): level is DutyLevel => DUTY_LEVELS.includes(level as DutyLevel))
    ) {
      throw new Error(`${path}: separationOfDuties.${workflowId} must be a list of ${DUTY_LEVELS.join(', ')}`);
    }
    duties[workflowId] = levels;
  }
  return duties;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
