/**
 * The input schemas of Claude Code's own tools, as the Claude Agent SDK publishes them
 * (`@anthropic-ai/claude-agent-sdk/sdk-tools.d.ts`, generated from Claude Code's JSON
 * Schemas): the properties a person may edit and their types, and the required ones. An
 * approver's edit of such a call is checked against them (F19, F56), in the process that
 * asked and in every process that answers. Properties Claude Code adds in a later release
 * are let through (`additionalProperties`): an edit keeps what the call proposed.
 */
const string = { type: 'string' } as const;
const number = { type: 'number' } as const;
const boolean = { type: 'boolean' } as const;

function object(
  properties: Record<string, Record<string, unknown>>,
  required: readonly string[],
): Record<string, unknown> {
  return { type: 'object', properties, required: [...required], additionalProperties: true };
}

export const CLAUDE_CODE_TOOL_SCHEMAS: Readonly<Record<string, Record<string, unknown>>> = {
  Read: object({ file_path: string, offset: number, limit: number, pages: string, allow_large: boolean }, [
    'file_path',
  ]),
  Write: object({ file_path: string, content: string }, ['file_path', 'content']),
  Edit: object({ file_path: string, old_string: string, new_string: string, replace_all: boolean }, [
    'file_path',
    'old_string',
    'new_string',
  ]),
  NotebookEdit: object(
    {
      notebook_path: string,
      cell_id: string,
      new_source: string,
      cell_type: { enum: ['code', 'markdown'] },
      edit_mode: { enum: ['replace', 'insert', 'delete'] },
    },
    ['notebook_path', 'new_source'],
  ),
  Bash: object(
    {
      command: string,
      timeout: number,
      description: string,
      run_in_background: boolean,
      dangerouslyDisableSandbox: boolean,
    },
    ['command'],
  ),
  Glob: object({ pattern: string, path: string }, ['pattern']),
  Grep: object(
    {
      pattern: string,
      path: string,
      glob: string,
      output_mode: { enum: ['content', 'files_with_matches', 'count'] },
      type: string,
      head_limit: number,
      offset: number,
      multiline: boolean,
    },
    ['pattern'],
  ),
  WebFetch: object({ url: string, prompt: string, offset: number }, ['url', 'prompt']),
  WebSearch: object(
    {
      query: string,
      allowed_domains: { type: 'array', items: string },
      blocked_domains: { type: 'array', items: string },
    },
    ['query'],
  ),
};
