import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolContext } from '../define-tool.js';
import { resolveInWorkspace, type PathUse } from './workspace-path.js';

const MAX_READ_CHARACTERS = 100_000;

/** How a write of this call resolves its path: a person's approval vouches for where it reaches. */
const writing = (context: ToolContext): PathUse => ({ writes: true, approvedByPerson: context.approval !== undefined });

/** Reads a text file inside the workspace. */
export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a text file of the workspace. Paths are relative to the workspace root.',
  parameters: z.object({ path: z.string().min(1).describe('Path relative to the workspace root') }),
  category: 'read',
  riskLevel: 'LOW',
  idempotent: true,
  tags: ['file'],
  async execute({ path }, context) {
    const text = await readFile(await resolveInWorkspace(context.workspaceRoot, path), 'utf8');
    return text.length > MAX_READ_CHARACTERS ? `${text.slice(0, MAX_READ_CHARACTERS)}\n…(truncated)` : text;
  },
});

/** Lists a directory inside the workspace. */
export const listDirTool = defineTool({
  name: 'list_dir',
  description: 'List the entries of a workspace directory ("." for the root); directories end with "/".',
  parameters: z.object({ path: z.string().min(1).default('.') }),
  category: 'read',
  riskLevel: 'LOW',
  idempotent: true,
  tags: ['file'],
  async execute({ path }, context) {
    const entries = await readdir(await resolveInWorkspace(context.workspaceRoot, path), { withFileTypes: true });
    return entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
  },
});

/** Creates or replaces a file inside the workspace. */
export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Create or overwrite a text file of the workspace.',
  parameters: z.object({ path: z.string().min(1), content: z.string() }),
  category: 'write',
  riskLevel: 'MEDIUM',
  idempotent: true,
  tags: ['file'],
  writesPaths: ({ path }) => [path],
  async execute({ path, content }, context) {
    const target = await resolveInWorkspace(context.workspaceRoot, path, writing(context));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    return `wrote ${content.length} characters to ${path}`;
  },
});

/** Replaces one exact piece of text in a workspace file. */
export const editFileTool = defineTool({
  name: 'edit_file',
  description: 'Replace one exact occurrence of `find` with `replace` in a workspace file.',
  parameters: z.object({ path: z.string().min(1), find: z.string().min(1), replace: z.string() }),
  category: 'write',
  riskLevel: 'MEDIUM',
  tags: ['file'],
  writesPaths: ({ path }) => [path],
  async execute({ path, find, replace }, context) {
    const target = await resolveInWorkspace(context.workspaceRoot, path, writing(context));
    const text = await readFile(target, 'utf8');
    const first = text.indexOf(find);
    if (first === -1) throw new Error(`"${find.slice(0, 80)}" does not occur in ${path}`);
    if (text.indexOf(find, first + 1) !== -1)
      throw new Error(`"${find.slice(0, 80)}" occurs more than once in ${path}: give more context`);
    await writeFile(target, text.slice(0, first) + replace + text.slice(first + find.length));
    return `edited ${path}`;
  },
});
