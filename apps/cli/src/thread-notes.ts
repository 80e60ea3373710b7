import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApprovalMode } from '@interlock/core';
import { APPROVAL_MODES } from './approval-mode-option.js';

/** The model noted for a thread started without `--model`: the project file's `[models.default]`, else the demo model. */
export const PROJECT_MODEL = 'project';

/** Thread ids become file names: anything else is not looked up. */
const SAFE_ID = /^[A-Za-z0-9_-]+$/;

/**
 * How the CLI ran a thread, which the store does not keep: the workflow file (a fallback for
 * engines that cannot load the definition from the store), the workspace the tools are
 * confined to, the approval mode, and the model (never its key). `interlock resume` and
 * `interlock respond` continue the thread with the same settings unless told otherwise.
 */
export interface ThreadNote {
  /** The absolute path of the workflow file. */
  workflowPath: string;
  /** The absolute path of the workspace. */
  workspaceRoot: string;
  mode: ApprovalMode;
  /** `--model`, e.g. `scripted` or `openai:gpt-4o-mini`; {@link PROJECT_MODEL} when none was given. */
  model: string;
  /** `--base-url`, when given. */
  baseUrl?: string;
}

/**
 * The CLI's notes about the threads it started, one small JSON file per thread in
 * `<directory>/threads/<threadId>.json` (beside the SQLite file; for PostgreSQL, in
 * `.interlock/` of the current directory). One file per thread, written atomically, so
 * processes starting threads at the same time never overwrite each other's notes.
 */
export class ThreadNotes {
  private readonly directory: string;

  /** @param storeDirectory - the directory of the store, or undefined for a store that does not outlive the process (no notes). */
  constructor(storeDirectory: string | undefined) {
    this.directory = storeDirectory === undefined ? '' : join(storeDirectory, 'threads');
  }

  /** Keeps the note of a thread. Best effort: a note that cannot be written only loses the defaults it would give. */
  async remember(threadId: string, note: ThreadNote): Promise<boolean> {
    if (this.directory === '' || !SAFE_ID.test(threadId)) return false;
    try {
      await mkdir(this.directory, { recursive: true });
      const file = this.fileOf(threadId);
      const partial = `${file}.${process.pid}.tmp`;
      await writeFile(partial, `${JSON.stringify(note, null, 2)}\n`);
      await rename(partial, file);
      return true;
    } catch {
      return false;
    }
  }

  /** The note of a thread, or undefined when there is none (another tool started it, or it was lost). */
  async recall(threadId: string): Promise<ThreadNote | undefined> {
    if (this.directory === '' || !SAFE_ID.test(threadId)) return undefined;
    let text: string;
    try {
      text = await readFile(this.fileOf(threadId), 'utf8');
    } catch {
      return undefined;
    }
    return parseNote(text);
  }

  private fileOf(threadId: string): string {
    return join(this.directory, `${threadId}.json`);
  }
}

/** Validates a note read from disk: a file edited by hand or by an older CLI gives nothing rather than nonsense. */
function parseNote(text: string): ThreadNote | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record: Record<string, unknown> = { ...value };
  const { workflowPath, workspaceRoot, mode, model, baseUrl } = record;
  if (typeof workflowPath !== 'string' || typeof workspaceRoot !== 'string' || typeof model !== 'string')
    return undefined;
  const knownMode = APPROVAL_MODES.find((candidate) => candidate === mode);
  if (knownMode === undefined) return undefined;
  return { workflowPath, workspaceRoot, mode: knownMode, model, ...(typeof baseUrl === 'string' ? { baseUrl } : {}) };
}
