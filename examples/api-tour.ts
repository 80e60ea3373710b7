// The README's example as a program: a thread that waits durably for an answer given
// through respond(), as a web inbox or an API would give it.
// Run: pnpm build && node --experimental-strip-types examples/api-tour.ts (Node 22+), or via the examples test.
import { createInterlock, ofType, scriptedModel, type ThreadOutcome } from '@interlock/core';

export async function main(log: (...values: unknown[]) => void = console.log): Promise<ThreadOutcome[]> {
  const interlock = await createInterlock({
    models: { default: scriptedModel(['1. Read the code 2. Add the flag 3. Test it', 'Done.']) },
    // no handler for channel 'inbox': its questions wait durably for respond()
  });
  const workflow = await interlock.loadWorkflow(new URL('./workflows/plan-approval.toml', import.meta.url).pathname);
  const thread = await interlock.start(workflow, { channel: 'inbox', input: { task: 'Add --json' } });
  thread.events$.pipe(ofType('USER_INTERACTION_REQUESTED')).subscribe((event) => {
    log('asked:', event.request.prompt);
  });
  const waiting = await thread.done();
  log(waiting); // { status: 'waiting', pendingInteractionIds: [...] }

  const [question] = await interlock.pending();
  if (!question) throw new Error('nothing is waiting for an answer');
  const answer = await interlock.respond(question.interactionId, 'yes', { responder: 'ada' });
  const outcomes = [waiting];
  if (answer.status === 'accepted' && answer.thread) outcomes.push(await answer.thread.done());
  log(outcomes.at(-1)); // { status: 'completed', … }
  await interlock.close();
  return outcomes;
}
