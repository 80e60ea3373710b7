/**
 * The OpenAI Agents SDK under Interlock, offline (docs/adapters.md): a local scripted model
 * proposes a write, Interlock pauses the run, a person approves it with an edit (here, in
 * code: in an app, the web inbox or `interlock respond`), and the run goes on from the
 * stored RunState.
 */
import { Agent, OpenAIChatCompletionsModel, setTracingDisabled, tool } from '@openai/agents';
import { interlockAgent } from '@interlock/openai-agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { startLocalModel } from './local-model.js';

/** Runs the example; `log` receives what it prints. */
export async function main(log: (...values: unknown[]) => void = console.log): Promise<void> {
  setTracingDisabled(true);
  const model = await startLocalModel('chat', [
    { toolCalls: [{ id: 'call_1', name: 'write_file', arguments: { path: 'NOTES.md', content: 'draft' } }] },
    { text: 'I wrote NOTES.md.' },
  ]);
  const writeFile = tool({
    name: 'write_file',
    description: 'Writes a file',
    parameters: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path, content }) => `wrote ${JSON.stringify(content)} to ${path}`,
  });
  const agent = new Agent({
    name: 'notes',
    instructions: 'You keep the notes.',
    model: new OpenAIChatCompletionsModel(new OpenAI({ baseURL: model.baseURL, apiKey: 'local' }), 'local'),
    tools: [writeFile],
  });

  let finished: (output: unknown) => void = () => undefined;
  const output = new Promise((resolve) => (finished = resolve));
  const guarded = await interlockAgent({
    agent,
    tools: { write_file: { category: 'write', riskLevel: 'MEDIUM', pathArgument: 'path' } },
    onFinished: (result) => finished(result.finalOutput),
  });
  const outcome = await guarded.run('Write the notes');
  log('run:', outcome.status); // paused: the write waits for a person

  const [question] = await guarded.gate.interlock.pending();
  if (question === undefined) throw new Error('nothing waits');
  log('asked:', question.toolApproval?.toolName, question.toolApproval?.toolParameters);
  await guarded.gate.interlock.respond(
    question.interactionId,
    { approved: true, editedParameters: { path: 'NOTES.md', content: '# Notes\n' } },
    { responder: 'you' },
  );
  log('finished:', await output);
  await guarded.close();
  await model.close();
}
