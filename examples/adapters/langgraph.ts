/**
 * LangGraph (a LangChain 1 agent with humanInTheLoopMiddleware) under Interlock, offline
 * (docs/adapters.md): a local scripted model proposes a shell command, Interlock pauses the
 * thread, a person rejects it with a reason (here, in code: in an app, the web inbox or
 * `interlock respond`), and the thread resumes with the rejection the model reads.
 */
import { interlockGraph, interruptOnEvery } from '@interlock/langgraph';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { z } from 'zod';
import { startLocalModel } from './local-model.js';

/** Runs the example; `log` receives what it prints. */
export async function main(log: (...values: unknown[]) => void = console.log): Promise<void> {
  const model = await startLocalModel('chat', [
    { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'npm publish' } }] },
    { text: 'Understood: I will not publish.' },
  ]);
  const bash = tool(async ({ command }) => `ran ${command}`, {
    name: 'bash',
    description: 'Runs a shell command',
    schema: z.object({ command: z.string() }),
  });
  const checkpointer = new MemorySaver();
  // LangChain 1's middleware types do not hold under `exactOptionalPropertyTypes` (this
  // repository's setting): the middleware is built as documented and passed as it is.
  const hitl = humanInTheLoopMiddleware({ interruptOn: interruptOnEvery([bash]) } as never) as never;
  const agent = createAgent({
    model: new ChatOpenAI({ model: 'local', apiKey: 'local', configuration: { baseURL: model.baseURL } }),
    tools: [bash],
    checkpointer,
    middleware: [hitl],
  });

  let finished: (state: unknown) => void = () => undefined;
  const done = new Promise((resolve) => (finished = resolve));
  const guarded = await interlockGraph({
    graph: agent.graph,
    checkpointer,
    tools: { bash: { category: 'command', riskLevel: 'HIGH', commandArgument: 'command' } },
    onFinished: (state) => finished(state),
  });
  const outcome = await guarded.invoke(
    { messages: [{ role: 'user', content: 'Publish it' }] },
    { threadId: 'example' },
  );
  log('invoke:', outcome.status); // paused: `npm publish` waits for a person

  const [question] = await guarded.gate.interlock.pending();
  if (question === undefined) throw new Error('nothing waits');
  await guarded.gate.interlock.respond(question.interactionId, {
    approved: false,
    denyReason: 'not before the review',
  });
  const state = (await done) as { messages: { content: unknown }[] };
  log('the model answered:', state.messages.at(-1)?.content);
  await guarded.close();
  await model.close();
}
