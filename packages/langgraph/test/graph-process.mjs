// A process of the cross-process tests: `ask` invokes the agent until it pauses and stays
// alive (the test kills it with SIGKILL); `continue` is another process of the same gate,
// which resumes the paused thread once a person answers. Prints one JSON line per event.
import { interlockGraph } from '@interlock/langgraph';
import { testAgent, TOOL_POLICIES } from './test-agent.mjs';

const [mode] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const { graph, checkpointer } = testAgent({ baseURL: process.env.MODEL_URL, ledger: process.env.LEDGER });
const guarded = await interlockGraph({
  graph,
  checkpointer,
  store: { type: 'sqlite', path: process.env.STORE_PATH },
  tools: TOOL_POLICIES,
  workspaceRoot: process.env.WORKSPACE,
  onFinished: (result) => say({ finished: result.messages.at(-1).content, pid: process.pid }),
});
process.once('SIGTERM', () => void guarded.close().then(() => process.exit(0)));
if (mode === 'ask') {
  const outcome = await guarded.invoke(
    { messages: [{ role: 'user', content: 'Write the notes' }] },
    { threadId: 'notes-1' },
  );
  say({ outcome: outcome.status, pauseId: outcome.pauseId, pid: process.pid });
} else {
  say({ ready: true, pid: process.pid });
}
