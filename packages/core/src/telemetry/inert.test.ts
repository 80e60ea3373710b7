import { afterEach, describe, expect, it } from 'vitest';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, type Interlock } from '../index.js';

/* Without an OpenTelemetry SDK the API is inert (F59): a thread carries no trace context, and answers work as ever. */

let interlock: Interlock | undefined;
afterEach(async () => {
  await interlock?.close();
  interlock = undefined;
});

describe('telemetry without an SDK (F59)', () => {
  it('stores no trace context on a thread, unless the caller names one', async () => {
    interlock = await createInterlock();
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode()], { id: 'plain' }));
    const plain = await interlock.start(workflow, { channel: 'inbox' });
    await plain.done();
    expect((await interlock.thread(plain.threadId))?.traceparent).toBeUndefined();
    const [question] = await interlock.pending();
    expect(await interlock.respond(question!.interactionId, 'yes')).toMatchObject({ status: 'accepted' });

    const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const traced = await interlock.start(workflow, { channel: 'inbox', traceparent: caller });
    await traced.done();
    expect((await interlock.thread(traced.threadId))?.traceparent).toBe(caller);
  });
});
