// Answers the one pending approval from another process, the way the web inbox of a
// deployment does (the answer is stored with a job for a worker): node answer.mjs <store> '<answer json>'
import { createInterlock } from '@interlock/core';

const [store, answer] = process.argv.slice(2);
const interlock = await createInterlock({ store: { type: 'sqlite', path: store }, continueIn: 'workers-only' });
const [question] = await interlock.pending();
const result = await interlock.respond(question.interactionId, JSON.parse(answer), { responder: 'ada' });
process.stdout.write(`${JSON.stringify({ answered: question.toolApproval.toolName, status: result.status })}\n`);
await interlock.close();
