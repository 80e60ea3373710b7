import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderWorkflowJsonSchema } from '../scripts/workflow-json-schema.mjs';
import { Duration, RiskLevel, UserInteractionNodeConfig, WorkflowDefinition, WorkflowNode } from './index.js';

describe('@interlock/sdk-types', () => {
  it('ships a workflow JSON Schema that matches the zod schema (run `pnpm schema` when this fails)', () => {
    const file = readFileSync(fileURLToPath(new URL('../workflow.schema.json', import.meta.url)), 'utf8');
    expect(file).toBe(renderWorkflowJsonSchema(WorkflowDefinition));
  });

  it('parses durations to milliseconds', () => {
    expect(Duration.parse('30s')).toBe(30_000);
    expect(Duration.parse('1.5m')).toBe(90_000);
    expect(Duration.parse(250)).toBe(250);
    expect(Duration.safeParse('soon').success).toBe(false);
  });

  it('accepts the PUBLIC / MODERATE / SENSITIVE aliases of risk levels (F12)', () => {
    expect(RiskLevel.parse('SENSITIVE')).toBe('HIGH');
    expect(RiskLevel.parse('MODERATE')).toBe('MEDIUM');
    expect(RiskLevel.parse('LOW')).toBe('LOW');
    expect(RiskLevel.safeParse('EXTREME').success).toBe(false);
  });

  it('keeps UI fields out of USER_INTERACTION configs (seed 004)', () => {
    const result = UserInteractionNodeConfig.safeParse({
      operationType: 'ADD_MESSAGE',
      prompt: 'Why?',
      message: { contentTemplate: '{{ input }}' },
      showMessage: true,
    });
    expect(result.success).toBe(false);
  });

  it('does not let a workflow node ask for TOOL_APPROVAL directly (it comes from the LLM loop)', () => {
    const result = WorkflowNode.safeParse({
      id: 'approve',
      type: 'USER_INTERACTION',
      config: { operationType: 'TOOL_APPROVAL', prompt: 'ok?' },
    });
    expect(result.success).toBe(false);
  });

  it('fills in workflow defaults', () => {
    const workflow = WorkflowDefinition.parse({
      id: 'w',
      name: 'W',
      nodes: [
        { id: 'start', type: 'START' },
        { id: 'end', type: 'END' },
      ],
      edges: [{ from: 'start', to: 'end' }],
    });
    expect(workflow.config).toEqual({
      timeout: 0,
      maxSteps: 1000,
      toolApproval: { autoApprovedTools: [], approvalTimeout: 30_000 },
    });
    expect(workflow.version).toBe('1');
  });
});
