import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolCategory } from '@interlock/sdk-types';
import { defineTool, type Tool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { resolveApprovalOptions, type ApprovalMode, type ApprovalOptions } from './approval-options.js';
import { decideApproval, type ApprovalContext, type ShellClassifierPort } from './decide-approval.js';
import { SessionMemory } from './session-memory.js';

const tool = (
  name: string,
  category: ToolCategory,
  riskLevel: Tool['riskLevel'] = 'MEDIUM',
  extra: Partial<Tool> = {},
): Tool => ({
  ...defineTool({
    name,
    description: `${name} tool`,
    category,
    riskLevel,
    parameters: z.object({ path: z.string().optional(), command: z.string().optional() }),
    execute: async () => 'ok',
  }),
  ...extra,
});

const shellTool = tool('bash', 'command', 'HIGH', {
  shellCommand: (args) => String((args as { command?: string }).command),
});

/** A stand-in for the tree-sitter classifier: verdicts by exact command. */
const shell: ShellClassifierPort = {
  classify(command) {
    if (command === 'rm -rf /') return { verdict: 'banned', rule: 'shell:banned:rm-root', reasons: ['deletes /'] };
    if (command.startsWith('git push --force'))
      return { verdict: 'high-risk', rule: 'shell:high-risk:force-push', reasons: ['force push'] };
    if (command.includes('$('))
      return { verdict: 'ask', rule: 'shell:command-substitution', reasons: ['command substitution'] };
    return { verdict: 'safe', rule: 'shell:safe', reasons: [] };
  },
};

const tools = new ToolRegistry([
  tool('read', 'read'),
  tool('write', 'write'),
  tool('command', 'command'),
  tool('network', 'network'),
  tool('ask', 'ask', 'LOW'),
  tool('low_write', 'write', 'LOW'),
  tool('high_write', 'write', 'HIGH'),
  tool('picky', 'write', 'MEDIUM', {
    needsApproval: ({ arguments: args }) => (args as { path?: string }).path !== 'notes.txt',
  }),
  tool('strict_tool', 'write', 'MEDIUM', { requireExecutionApproval: true }),
  shellTool,
]);

function decide(
  toolName: string,
  args: Record<string, unknown> = {},
  options: ApprovalOptions = {},
  extra: { memory?: ApprovalContext['memory']; now?: number; autoApprovedTools?: string[] } = {},
) {
  return decideApproval(
    { toolName, arguments: args },
    {
      tools,
      options: resolveApprovalOptions(options),
      autoApprovedTools: extra.autoApprovedTools ?? [],
      shell,
      memory: extra.memory ?? new SessionMemory(),
      scope: { channel: 'cli', chatId: 'chat-1' },
      now: extra.now ?? 0,
    },
  );
}

describe('decideApproval: seed 002 modes × categories (F22, F23)', () => {
  const table: [string, string, string, string, string, string][] = [
    // mode,      read,    write,   command, network, ask
    ['default', 'allow', 'ask', 'ask', 'ask', 'ask'],
    ['autoEdit', 'allow', 'allow', 'ask', 'ask', 'ask'],
    ['yolo', 'allow', 'allow', 'allow', 'allow', 'ask'],
  ];
  for (const [mode, ...expected] of table) {
    it.each(['read', 'write', 'command', 'network', 'ask'].map((category, index) => [category, expected[index]]))(
      `${mode}: %s → %s`,
      (category, outcome) => {
        expect(decide(category, {}, { mode: mode as ApprovalMode }).outcome).toBe(outcome);
      },
    );
  }

  it('yolo still asks for high-risk and unprovable shell commands, and still denies banned ones (F25)', () => {
    expect(decide('bash', { command: 'ls' }, { mode: 'yolo' })).toMatchObject({ outcome: 'allow', rule: 'mode:yolo' });
    expect(decide('bash', { command: 'git push --force origin main' }, { mode: 'yolo' })).toMatchObject({
      outcome: 'ask',
      rule: 'shell:high-risk:force-push',
    });
    expect(decide('bash', { command: 'echo $(id)' }, { mode: 'yolo' })).toMatchObject({
      outcome: 'ask',
      rule: 'shell:command-substitution',
    });
    expect(decide('bash', { command: 'rm -rf /' }, { mode: 'yolo' })).toMatchObject({
      outcome: 'deny',
      rule: 'shell:banned:rm-root',
    });
  });

  it('needsApproval returning false lets a call run (step 9), and only that call', () => {
    expect(decide('picky', { path: 'notes.txt' })).toMatchObject({ outcome: 'allow', rule: 'tool:needs-approval' });
    expect(decide('picky', { path: 'secrets.txt' }).outcome).toBe('ask');
  });

  it('a tool that requires execution approval asks even in yolo', () => {
    expect(decide('strict_tool', {}, { mode: 'yolo' })).toMatchObject({
      outcome: 'ask',
      rule: 'tool:require-execution-approval',
    });
  });
});

describe('decideApproval: seed 003 flows (F12, F29, F30)', () => {
  it('approval.enabled = false allows every call; when enabled, an unknown tool is NOT_FOUND', () => {
    expect(decide('bash', { command: 'rm -rf /' }, { enabled: false })).toMatchObject({
      outcome: 'allow',
      rule: 'approval:disabled',
    });
    expect(decide('nope')).toMatchObject({ outcome: 'deny', rule: 'tool:not-found', notFound: true });
  });

  it.each([
    [true, 'ask'],
    [false, 'allow'],
    ['deny', 'deny'],
  ] as const)('toolOverrides %s → %s', (override, outcome) => {
    expect(decide('write', {}, { toolOverrides: { write: override } })).toMatchObject({
      outcome,
      rule: 'override:write',
    });
  });

  it('an override cannot open a banned shell command, and cannot skip a high-risk one', () => {
    expect(decide('bash', { command: 'rm -rf /' }, { toolOverrides: { bash: false } }).outcome).toBe('deny');
    expect(decide('bash', { command: 'git push --force' }, { toolOverrides: { bash: false } })).toMatchObject({
      outcome: 'ask',
      rule: 'shell:high-risk:force-push',
    });
    expect(decide('bash', { command: 'ls' }, { toolOverrides: { bash: false } })).toMatchObject({
      outcome: 'allow',
      rule: 'override:bash',
    });
  });

  it('risk levels: LOW never asks, MEDIUM asks and can be remembered, HIGH asks every time', () => {
    expect(decide('low_write')).toMatchObject({ outcome: 'allow', rule: 'risk:LOW' });
    expect(decide('write')).toMatchObject({ outcome: 'ask', rememberable: true });
    expect(decide('high_write')).toMatchObject({ outcome: 'ask', rememberable: false, rule: 'ask:risk:HIGH' });
  });

  it('session memory: a remembered MEDIUM approval covers the same arguments in its window only', () => {
    const memory = new SessionMemory();
    memory.remember(
      SessionMemory.key({ channel: 'cli', chatId: 'chat-1' }, tools.find('write')!, { path: 'a.txt' }),
      0,
      300_000,
    );
    expect(decide('write', { path: 'a.txt' }, {}, { memory, now: 1_000 })).toMatchObject({
      outcome: 'allow',
      rule: 'memory:session',
    });
    expect(decide('write', { path: 'b.txt' }, {}, { memory, now: 1_000 }).outcome).toBe('ask');
    expect(decide('write', { path: 'a.txt' }, {}, { memory, now: 300_000 }).outcome).toBe('ask');
    expect(memory.size).toBe(0); // the expired entry was dropped
  });

  it('session memory: an answer the caller looked up already (`known`) is used as it is, no key asked for', () => {
    const asked: string[] = [];
    const memory = (known: boolean) => ({ has: (key: string) => (asked.push(key), !known), known });
    expect(decide('write', { path: 'a.txt' }, {}, { memory: memory(true) })).toMatchObject({ rule: 'memory:session' });
    expect(decide('write', { path: 'a.txt' }, {}, { memory: memory(false) }).outcome).toBe('ask');
    expect(decide('high_write', { path: 'a.txt' }, {}, { memory: memory(true) }).outcome).toBe('ask'); // MEDIUM only
    expect(asked).toEqual([]);
  });

  it('strictMode: every non-LOW tool asks, whatever the mode, whitelist or memory', () => {
    const memory = new SessionMemory();
    memory.remember(SessionMemory.key({ channel: 'cli', chatId: 'chat-1' }, tools.find('write')!, {}), 0, 300_000);
    const strict = { strictMode: true, mode: 'autoEdit' as const, approvalTools: ['write'] };
    expect(decide('write', {}, strict, { memory, autoApprovedTools: ['write'] }).outcome).toBe('ask');
    expect(decide('read', {}, strict).outcome).toBe('ask');
    expect(decide('low_write', {}, strict).outcome).toBe('allow');
  });

  it('whitelists: the workflow autoApprovedTools and the session approvalTools (F17)', () => {
    expect(decide('network', {}, {}, { autoApprovedTools: ['network'] })).toMatchObject({
      outcome: 'allow',
      rule: 'whitelist:workflow',
    });
    expect(decide('network', {}, { approvalTools: ['network'] })).toMatchObject({
      outcome: 'allow',
      rule: 'whitelist:session',
    });
  });

  it('allow and deny rules on arguments (F48); deny wins, and allow rules never pass a risky command', () => {
    const rules = {
      allowRules: ['tool == "bash" && args.command.startsWith("git status")'],
      denyRules: ['args.path == ".env"'],
    };
    expect(decide('bash', { command: 'git status' }, rules)).toMatchObject({ outcome: 'allow', rule: 'allow-rule:0' });
    expect(decide('bash', { command: 'git status $(rm x)' }, rules).outcome).toBe('ask');
    expect(decide('write', { path: '.env' }, { ...rules, mode: 'yolo' })).toMatchObject({
      outcome: 'deny',
      rule: 'deny-rule:0',
    });
  });

  it('names every rule it looked at, in order, ending with the one that decided (F42)', () => {
    const decision = decide('write', {}, { mode: 'autoEdit' });
    expect(decision.path.map((step) => step.rule)).toEqual([
      'approval:disabled',
      'deny-rules',
      'category:ask',
      'overrides',
      'mode:yolo',
      'category:read',
      'tool:needs-approval',
      'mode:autoEdit',
    ]);
    expect(decision.path.at(-1)).toMatchObject({ result: 'allow' });
  });
});
