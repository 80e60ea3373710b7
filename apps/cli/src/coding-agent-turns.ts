import type { ModelRequest, ModelResponse, ModelToolCall } from '@interlock/core';
import type { Message } from '@interlock/sdk-types';

/** What the demo agent writes to NOTES.md when that call is approved. */
export const DEMO_NOTES =
  '# Notes\n\n- The README describes a small demo project.\n- Next: list the files, then clean up.\n';

/** The four calls the demo agent proposes at once: a read, a write, a command, and a banned command. */
const PROPOSED_CALLS: ModelToolCall[] = [
  { id: 'call-read-readme', name: 'read_file', arguments: { path: 'README.md' } },
  { id: 'call-write-notes', name: 'write_file', arguments: { path: 'NOTES.md', content: DEMO_NOTES } },
  { id: 'call-list-files', name: 'bash', arguments: { command: 'ls -la' } },
  { id: 'call-wipe-disk', name: 'bash', arguments: { command: 'rm -rf /' } },
];

/**
 * The demo coding agent (node `agent` of examples/workflows/coding-agent.toml). Its first
 * turn proposes four tool calls at once: read README.md (a read: runs), write NOTES.md
 * (asks), `ls -la` (a command: asks) and `rm -rf /` (banned: refused). Once their tool
 * messages are in the conversation, it sums up what ran and what was refused, and why.
 */
export function codingAgentTurn(request: ModelRequest): ModelResponse {
  const proposal = request.messages.findLast(
    (message) => message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0,
  );
  if (!proposal) {
    return {
      text: 'Let me look around: read the README, write my notes to NOTES.md, list the files, and start from a clean slate.',
      toolCalls: PROPOSED_CALLS.map((call) => ({ ...call, arguments: { ...call.arguments } })),
    };
  }
  return { text: summarise(proposal, request.messages) };
}

function summarise(proposal: Message, messages: readonly Message[]): string {
  const ran: string[] = [];
  const refused: string[] = [];
  for (const call of proposal.toolCalls ?? []) {
    const content =
      messages.find((message) => message.role === 'tool' && message.toolCallId === call.id)?.content ?? '';
    const name = describeCall(call.name, call.arguments);
    const status = /^\[([A-Z_]+)\]/.exec(content)?.[1];
    if (status === 'SUCCESS') ran.push(name);
    else refused.push(`${name} (${why(status, content)})`);
  }
  const lines = [
    `Done. Ran: ${ran.length === 0 ? 'nothing' : ran.join(', ')}.`,
    `Refused: ${refused.length === 0 ? 'nothing' : refused.join('; ')}.`,
  ];
  const instruction = messages.at(-1);
  if (instruction?.role === 'user' && messages.indexOf(proposal) < messages.length - 1)
    lines.push(`Noted your instruction: "${instruction.content}".`);
  return lines.join('\n');
}

function describeCall(name: string, parameters: Record<string, unknown>): string {
  if (typeof parameters['command'] === 'string') return `${name} \`${parameters['command']}\``;
  if (typeof parameters['path'] === 'string') return `${name} ${parameters['path']}`;
  return name;
}

function why(status: string | undefined, content: string): string {
  switch (status) {
    case 'EXECUTION_REJECTED': {
      const reason = /This call was not run: ([\s\S]*?)\. Do not retry/.exec(content)?.[1] ?? 'rejected';
      // A policy denial carries the rule's long reason after it; the rule says enough here.
      return /^denied by policy \([^)]*\)/.exec(reason)?.[0] ?? reason;
    }
    case 'TIMEOUT':
      return 'nobody approved it in time';
    case 'RESULT_REJECTED':
      return 'it ran, but its result was withheld';
    case 'NOT_FOUND':
      return 'no such tool';
    default:
      return content.replace(/^\[[A-Z_]+\]\s*/, '').slice(0, 80) || 'it did not finish';
  }
}
