import { get } from 'node:http';
import { PassThrough } from 'node:stream';
import { InterlockError } from '@interlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { respond } from './web-api-harness.js';
import { eventually, manualClock, request, signIn, startHarness, type WebHarness } from './web-harness.js';

// The web API over servers of their own: deadlines on a clock moved by hand, a restart over
// the same store, and what the request log leaves out. The shared server: web-api.int.test.ts.

describe('deadlines', () => {
  let harness: WebHarness;
  const clock = manualClock();
  beforeAll(async () => {
    harness = await startHarness({ approvalTimeout: '1m', clock, pollInterval: 0 });
  });
  afterAll(() => harness?.close());

  it('refuses an answer after the deadline with 410 INTERACTION_EXPIRED, and nothing runs for it', async () => {
    const { approvals, threadId } = await harness.startReleaseAgent();
    clock.advance(61_000);
    const late = await request(harness, respond(approvals[1]!.interactionId), {
      token: harness.tokens['alice']!,
      body: { action: 'approve' },
    });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ code: 'INTERACTION_EXPIRED', message: expect.stringContaining('nothing ran') });
    const invalidAndLate = await request(harness, respond(approvals[0]!.interactionId), {
      token: harness.tokens['alice']!,
      body: { action: 'edit', arguments: { path: 5 } },
    });
    expect(invalidAndLate.status).toBe(410);
    const executions = await harness.store.listToolExecutions({ threadId });
    expect(executions.filter((execution) => execution.toolName === 'bash')).toEqual([]);
  });

  it('expires overdue interactions on its own and tells the page', async () => {
    const { approvals } = await harness.startReleaseAgent();
    const changes: string[] = [];
    const unsubscribe = harness.app.liveUpdates.subscribe((change) =>
      changes.push(`${change.reason}:${change.interactionId}`),
    );
    clock.advance(61_000);
    await harness.app.liveUpdates.tick();
    unsubscribe();
    expect(changes).toContain(`expired:${approvals[0]!.interactionId}`);
    expect((await harness.interlock.pending()).map((request) => request.interactionId)).not.toContain(
      approvals[0]!.interactionId,
    );
  });
});

describe('a deadline while the database is unreachable', () => {
  it('continues the thread at a later look when the store failed as the server continued it', async () => {
    const clock = manualClock();
    const harness = await startHarness({ approvalTimeout: '1m', clock, pollInterval: 0 });
    try {
      const { approvals, threadId } = await harness.startReleaseAgent();
      const expiredId = approvals[0]!.interactionId;
      const resume = harness.interlock.resume.bind(harness.interlock);
      const resumed: string[] = [];
      let reachable = false;
      harness.interlock.resume = (id) => {
        resumed.push(id);
        return reachable ? resume(id) : Promise.reject(new InterlockError('STORE_UNAVAILABLE', 'connection refused'));
      };
      clock.advance(61_000);
      await harness.app.liveUpdates.tick();
      expect(resumed).toEqual([threadId]);
      expect((await harness.interlock.thread(threadId))?.pendingInteractionIds).toContain(expiredId);

      reachable = true;
      await harness.app.liveUpdates.tick();
      expect(resumed).toEqual([threadId, threadId]);
      await eventually(async () =>
        (await harness.interlock.thread(threadId))?.pendingInteractionIds.includes(expiredId) === false
          ? true
          : undefined,
      );
      await harness.app.liveUpdates.tick();
      expect(resumed).toEqual([threadId, threadId]);
    } finally {
      await harness.close();
    }
  });
});

describe('a restart', () => {
  it('keeps the approvals waiting; a restarted server takes the answer and the thread finishes', async () => {
    const first = await startHarness();
    const { approvals, threadId } = await first.startReleaseAgent();
    let connected: () => void = () => undefined;
    const streamConnected = new Promise<void>((resolve) => (connected = resolve));
    const streamEnded = new Promise<void>((resolve, reject) => {
      get(
        `${first.baseUrl}/api/events`,
        { headers: { authorization: `Bearer ${first.tokens['alice']}` } },
        (response) => {
          response.once('data', () => connected());
          response.on('end', resolve);
        },
      ).on('error', reject);
    });
    await streamConnected;
    await first.stop();
    // Closing the server ends the live streams (a page reconnects to the next server).
    await streamEnded;
    const second = await startHarness({ directory: first.directory });
    try {
      const listed = await request(second, '/api/interactions', { token: second.tokens['alice']! });
      expect(
        listed.body.interactions.map((interaction: { interactionId: string }) => interaction.interactionId).sort(),
      ).toEqual(approvals.map((approval) => approval.interactionId).sort());
      for (const approval of approvals) {
        expect(
          (
            await request(second, respond(approval.interactionId), {
              token: second.tokens['alice']!,
              body: { action: 'reject', reason: 'after the restart' },
            })
          ).status,
        ).toBe(200);
      }
      const thread = await eventually(async () => {
        const record = await second.store.getThread(threadId);
        return record?.status === 'completed' ? record : undefined;
      });
      expect(thread.conversation.at(-1)?.content).toContain('after the restart');
    } finally {
      await second.close();
    }
  });
});

describe('logs', () => {
  it('never contain a token, a session cookie or a CSRF token', async () => {
    const log = new PassThrough();
    let text = '';
    log.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const harness = await startHarness({ logStream: log });
    try {
      const { cookie, csrf } = await signIn(harness, 'alice');
      await request(harness, '/api/interactions', { token: harness.tokens['bob']! });
      await request(harness, '/api/session', { cookie, csrf, method: 'DELETE' });
      await request(harness, '/api/session', { body: { token: 'a-wrong-token-that-is-long' } });
      expect(text).toContain('"statusCode":401');
      for (const secret of [
        harness.tokens['alice']!,
        harness.tokens['bob']!,
        cookie.split('=')[1]!,
        csrf,
        'a-wrong-token-that-is-long',
      ])
        expect(text).not.toContain(secret);
    } finally {
      await harness.close();
    }
  });
});
