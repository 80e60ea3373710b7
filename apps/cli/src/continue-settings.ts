import { stat } from 'node:fs/promises';
import type { ApprovalMode, ModelProvider } from '@interlock/core';
import { parseApprovalMode } from './approval-mode-option.js';
import { createModel } from './model-option.js';
import { PROJECT_MODEL, type ThreadNote } from './thread-notes.js';
import { UsageError } from './usage-error.js';
import { resolveWorkspace } from './workspace-option.js';

/** The options `resume` and `respond` share with `run`, as given on the command line. */
export interface ContinueFlags {
  model?: string | undefined;
  'base-url'?: string | undefined;
  mode?: string | undefined;
  workspace?: string | undefined;
}

/** How this process takes a thread forward. */
export interface ContinueSettings {
  model: ModelProvider;
  mode: ApprovalMode;
  workspaceRoot: string;
}

/**
 * The model, mode and workspace to continue a thread with: what the command line says,
 * else what the CLI noted when it started the thread (so `interlock respond` from another
 * terminal runs the tools in the same workspace with the same model), else the defaults
 * (scripted model, default mode, the current directory).
 *
 * @throws UsageError for a bad option, or when the noted workspace no longer exists and no `--workspace` is given.
 */
export async function resolveContinueSettings(
  flags: ContinueFlags,
  note: ThreadNote | undefined,
  command: string,
): Promise<ContinueSettings> {
  const modelSpec =
    flags.model !== undefined || flags['base-url'] !== undefined || note === undefined
      ? {
          ...(flags.model === undefined ? {} : { model: flags.model }),
          ...(flags['base-url'] === undefined ? {} : { baseUrl: flags['base-url'] }),
        }
      : {
          ...(note.model === PROJECT_MODEL ? {} : { model: note.model }),
          ...(note.baseUrl === undefined ? {} : { baseUrl: note.baseUrl }),
        };
  return {
    model: createModel(modelSpec, command),
    mode: flags.mode === undefined && note !== undefined ? note.mode : parseApprovalMode(flags.mode, command),
    workspaceRoot: await workspaceOf(flags.workspace, note, command),
  };
}

async function workspaceOf(given: string | undefined, note: ThreadNote | undefined, command: string): Promise<string> {
  if (given !== undefined || note === undefined) return resolveWorkspace(given, command);
  const found = await stat(note.workspaceRoot).catch(() => undefined);
  if (found?.isDirectory() !== true) {
    throw new UsageError(
      `the thread's workspace ${note.workspaceRoot} no longer exists: give --workspace DIR to continue it elsewhere`,
      command,
    );
  }
  return note.workspaceRoot;
}
