// Answers one pending approval from its own process, whose working directory is not the
// asking agent's (a deployment's inbox, `interlock respond` run elsewhere), with the built
// package: node answer-from-elsewhere.mjs <sqlite store> '<answer json>'. Prints what came of it.
import { createInterlock } from '../../../dist/index.js';

const [store, answer] = process.argv.slice(2);
const interlock = await createInterlock({ store: { type: 'sqlite', path: store }, continueIn: 'workers-only' });
try {
  const [question] = await interlock.pending();
  const result = await interlock
    .respond(question.interactionId, JSON.parse(answer), { responder: 'cli:ada' })
    .then((outcome) => ({ status: outcome.status }))
    .catch((error) => ({ code: error.code, message: error.message }));
  process.stdout.write(`${JSON.stringify({ cwd: process.cwd(), ...result })}\n`);
} finally {
  await interlock.close();
}
