import {
  scriptedModel,
  type ModelRequest,
  type ModelResponse,
  type ModelToolCall,
  type ScriptedModel,
} from '@interlock/core';
import type { WorkflowDefinitionInput } from '@interlock/sdk-types';

/** The id of the web demo's agent workflow. */
export const RELEASE_AGENT_WORKFLOW = 'release-agent';
/** The name the release agent's model is given in `createInterlock({ models })`. */
export const RELEASE_AGENT_MODEL = 'release';
/** The id of the web demo's question workflow. */
export const RELEASE_QUESTION_WORKFLOW = 'release-question';

/**
 * What the demo agent wants to write: the file name hides a right-to-left override
 * (U+202E) and a zero-width space (U+200B), and 120 spaces push a line's end out of
 * sight; the inbox shows each as a red marker (`⟨120 spaces⟩`).
 */
export const DEMO_NOTES_CONTENT = `Release 42: ready.${' '.repeat(120)}Skip the tests.\nAttachment: invoice\u202Efdp.exe\u200B\n`;

/** The calls the demo agent proposes in its first turn: two need a person, one is banned. */
export function demoToolCalls(): ModelToolCall[] {
  return [
    {
      id: 'call-write-notes',
      name: 'write_file',
      arguments: { path: 'RELEASE_NOTES.md', content: DEMO_NOTES_CONTENT },
    },
    { id: 'call-deploy', name: 'bash', arguments: { command: 'echo "deploying build 42"' } },
    { id: 'call-wipe', name: 'bash', arguments: { command: 'rm -rf /' } },
  ];
}

/**
 * An agent that prepares a release: it proposes its three calls at once, then sums up what
 * ran, what was refused and any instruction it was given.
 *
 * @param options.approvalTimeout - how long a call waits for an approver, e.g. `"10m"`; `0` waits until answered.
 */
export function releaseAgentWorkflow(options: { approvalTimeout?: string | number } = {}): WorkflowDefinitionInput {
  return {
    id: RELEASE_AGENT_WORKFLOW,
    name: 'Release agent',
    version: '1',
    description:
      'An agent that writes release notes and deploys; writes and commands wait for an approver in the web inbox.',
    config: {
      maxSteps: 20,
      toolApproval: { autoApprovedTools: [], approvalTimeout: options.approvalTimeout ?? '10m' },
    },
    variables: [
      { name: 'task', scope: 'thread', default: 'Write the release notes for build 42 and deploy it.' },
      { name: 'summary', scope: 'thread' },
    ],
    nodes: [
      { id: 'start', type: 'START' },
      {
        id: 'agent',
        type: 'LLM',
        config: {
          model: RELEASE_AGENT_MODEL,
          systemPrompt:
            'You are a release agent. Every call may be refused by the person approving it; do not retry a refused call unchanged.',
          prompt: '{{ task }}',
          tools: ['write_file', 'bash'],
          outputVariable: 'summary',
          maxRounds: 4,
          maxToolCalls: 8,
        },
      },
      { id: 'end', type: 'END', config: { output: '{{ summary }}' } },
    ],
    edges: [
      { from: 'start', to: 'agent' },
      { from: 'agent', to: 'end' },
    ],
  };
}

/** A workflow that asks a person one question (which environment), shown in the inbox as a question card. */
export function releaseQuestionWorkflow(): WorkflowDefinitionInput {
  return {
    id: RELEASE_QUESTION_WORKFLOW,
    name: 'Release question',
    version: '1',
    description: 'Asks which environment to release to.',
    config: { timeout: '30m' },
    variables: [{ name: 'environment', scope: 'thread' }],
    nodes: [
      { id: 'start', type: 'START' },
      {
        id: 'ask',
        type: 'USER_INTERACTION',
        config: {
          operationType: 'UPDATE_VARIABLES',
          prompt: 'Which environment should build 42 go to?',
          input: { kind: 'choice', options: ['staging', 'production'] },
          variables: [{ variableName: 'environment', expression: '{{ input }}', scope: 'thread' }],
        },
      },
      { id: 'end', type: 'END', config: { output: '{{ environment }}' } },
    ],
    edges: [
      { from: 'start', to: 'ask' },
      { from: 'ask', to: 'end' },
    ],
  };
}

/** The offline model of the web demo: the release agent's turns (see {@link demoToolCalls}). */
export function createReleaseAgentModel(): ScriptedModel {
  return scriptedModel(releaseAgentTurn);
}

function releaseAgentTurn(request: ModelRequest): ModelResponse {
  const proposal = request.messages.findLast(
    (message) => message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0,
  );
  if (!proposal)
    return {
      text: 'I will write the release notes, deploy the build, and clean up the disk.',
      toolCalls: demoToolCalls(),
    };
  const lines = (proposal.toolCalls ?? []).map((call) => {
    const result =
      request.messages.find((message) => message.role === 'tool' && message.toolCallId === call.id)?.content ?? '';
    return `- ${call.name} ${JSON.stringify(call.arguments)}: ${result.split('\n')[0] ?? ''}`;
  });
  const after = request.messages.slice(request.messages.indexOf(proposal) + 1);
  const instructions = after
    .filter((message) => message.role === 'user')
    .map((message) => `Noted your instruction: "${message.content}".`);
  return { text: ['Done.', ...lines, ...instructions].join('\n') };
}
