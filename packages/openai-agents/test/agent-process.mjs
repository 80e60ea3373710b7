// A process of the cross-process tests: `ask` runs the agent until it pauses and stays
// alive (the test kills it with SIGKILL); `continue` is another process of the same gate,
// which takes the paused run on once a person answers. Prints one JSON line per event.
import { interlockAgent } from '@interlock/openai-agents';
import { testAgent, TOOL_POLICIES } from './test-agent.mjs';

const [mode, prompt] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const guarded = await interlockAgent({
  agent: testAgent({ baseURL: process.env.MODEL_URL, ledger: process.env.LEDGER }),
  store: { type: 'sqlite', path: process.env.STORE_PATH },
  tools: TOOL_POLICIES,
  workspaceRoot: process.env.WORKSPACE,
  onFinished: (result) => say({ finished: result.finalOutput, pid: process.pid }),
});
process.once('SIGTERM', () => void guarded.close().then(() => process.exit(0)));
if (mode === 'ask') {
  const outcome = await guarded.run(prompt ?? 'Write the notes');
  say({ outcome: outcome.status, pauseId: outcome.pauseId, pid: process.pid });
} else {
  say({ ready: true, pid: process.pid });
}
