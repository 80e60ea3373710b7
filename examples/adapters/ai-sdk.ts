/**
 * The Vercel AI SDK 7 under Interlock, offline (docs/adapters.md): `toolApproval` decided by
 * Interlock — a read runs at once, a write becomes a tool-approval-request that waits in
 * Interlock, a person approves it (here, in code: in an app, the web inbox or `interlock
 * respond`), and respond() builds the next call's messages.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { interlockApprovals } from '@interlock/ai-sdk';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { startLocalModel } from './local-model.js';

/** Runs the example; `log` receives what it prints. */
export async function main(log: (...values: unknown[]) => void = console.log): Promise<void> {
  const local = await startLocalModel('chat', [
    {
      toolCalls: [
        { id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } },
        { id: 'call_2', name: 'write_file', arguments: { path: 'NOTES.md', content: '# Notes\n' } },
      ],
    },
    { text: 'I read the README and wrote NOTES.md.' },
  ]);
  const model = createOpenAICompatible({ name: 'local', baseURL: local.baseURL, apiKey: 'local' })('local');
  const toolSet = {
    read_file: tool({
      description: 'Reads a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => `contents of ${path}`,
    }),
    write_file: tool({
      description: 'Writes a file',
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path }) => `wrote ${path}`,
    }),
  };
  const approvals = await interlockApprovals({
    tools: {
      read_file: { category: 'read', riskLevel: 'LOW' },
      write_file: { category: 'write', riskLevel: 'MEDIUM', pathArgument: 'path' },
    },
  });
  // The tools' input schemas come with them: an approver's edit is checked against them.
  const toolApproval = approvals.toolApproval({ sessionId: 'chat-1' });
  const messages: ModelMessage[] = [{ role: 'user', content: 'Write the notes' }];
  const first = await generateText({ model, tools: toolSet, toolApproval, messages, stopWhen: stepCountIs(5) });
  log('approval requests:', first.content.filter((part) => part.type === 'tool-approval-request').length);

  const [question] = await approvals.gate.interlock.pending();
  if (question === undefined) throw new Error('nothing waits');
  await approvals.gate.interlock.respond(question.interactionId, 'yes', { responder: 'you' });
  const answer = await approvals.respond([...messages, ...first.response.messages], {
    sessionId: 'chat-1',
    wait: true,
  });
  if (answer.status !== 'ready') throw new Error('still waiting');
  const second = await generateText({
    model,
    tools: toolSet,
    toolApproval,
    messages: answer.messages,
    stopWhen: stepCountIs(5),
  });
  log('the model answered:', second.text);
  await approvals.close();
  await local.close();
}
