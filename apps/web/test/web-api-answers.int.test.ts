import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { builtinTools, createInterlock } from '@interlock/core';
import { createReleaseAgentModel, RELEASE_QUESTION_WORKFLOW } from '../src/demo/web-demo.js';
import { respond, useApiHarness } from './web-api-harness.js';
import { eventually, request, signIn } from './web-harness.js';

// What answers through the web API do (edits, reasons, values, a batch), threads started and
// cancelled, and the live updates of the pages, also for answers from another process.
// Access and refusals: web-api.int.test.ts.

describe('the web API over HTTP', () => {
  const { harness, alice, pendingIds } = useApiHarness();

  describe('answers', () => {
    it("runs edited arguments, tells the model a rejection's reason, and adds an instruction to the conversation", async () => {
      const { approvals, threadId } = await harness.startReleaseAgent();
      const [write, deploy] = approvals;
      const edited = await request(harness, respond(write!.interactionId), {
        ...alice(),
        body: { action: 'edit', arguments: { path: 'NOTES.md', content: 'clean' }, instruction: 'keep it short' },
      });
      expect(edited.status).toBe(200);
      expect(
        (
          await request(harness, respond(deploy!.interactionId), {
            ...alice(),
            body: { action: 'reject', reason: 'freeze until Monday' },
          })
        ).status,
      ).toBe(200);
      const timeline = await eventually(async () => {
        const response = await request(harness, `/api/threads/${threadId}`, alice());
        return response.body.thread.status === 'completed' ? response.body : undefined;
      });
      const contents = timeline.conversation.map((message: { content: string }) => message.content).join('\n');
      expect(contents).toContain('freeze until Monday');
      expect(contents).toContain('keep it short');
      const decision = timeline.entries.find(
        (entry: { kind: string; title: string }) =>
          entry.kind === 'decision' && entry.title.startsWith('allowed write_file'),
      );
      expect(decision).toMatchObject({
        actor: 'web:alice',
        detail: { editedArguments: { path: 'NOTES.md', content: 'clean' } },
      });
    });

    it('answers a question with a value and the thread completes with it', async () => {
      const started = await request(harness, '/api/threads', {
        ...alice(),
        body: { workflowId: RELEASE_QUESTION_WORKFLOW },
      });
      expect(started.status).toBe(201);
      const { threadId } = started.body;
      const question = await eventually(async () =>
        (await harness.interlock.pending()).find((request) => request.threadId === threadId),
      );
      expect(
        (
          await request(harness, respond(question.interactionId), {
            token: harness.tokens['bob']!,
            body: { action: 'answer', value: 'staging' },
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await request(harness, respond(question.interactionId), {
            ...alice(),
            body: { action: 'answer', value: 'staging' },
          })
        ).status,
      ).toBe(200);
      const thread = await eventually(async () => {
        const record = await harness.store.getThread(threadId);
        return record?.status === 'completed' ? record : undefined;
      });
      expect(thread.output).toBe('staging');
    });

    it('approves the calls of one turn in one request', async () => {
      const { approvals } = await harness.startReleaseAgent();
      const response = await request(harness, '/api/interactions/approve-batch', {
        ...alice(),
        body: { interactionIds: approvals.map((approval) => approval.interactionId) },
      });
      expect(response.body.results.map((result: { result: string }) => result.result)).toEqual([
        'accepted',
        'accepted',
      ]);
      expect(await pendingIds()).not.toContain(approvals[0]!.interactionId);
      expect(await pendingIds()).not.toContain(approvals[1]!.interactionId);
    });
  });

  describe('threads', () => {
    it('cancels a waiting thread; a later answer to its approval gets 409', async () => {
      const { approvals, threadId } = await harness.startReleaseAgent();
      const cancelled = await request(harness, `/api/threads/${threadId}/cancel`, {
        ...alice(),
        body: { reason: 'wrong branch' },
      });
      expect(cancelled.body).toEqual({ threadId, status: 'cancelled' });
      const late = await request(harness, respond(approvals[0]!.interactionId), {
        ...alice(),
        body: { action: 'approve' },
      });
      expect(late.status).toBe(409);
      expect(late.body.message).toContain('cancelled');
      expect((await request(harness, `/api/threads/${threadId}/cancel`, { ...alice(), body: {} })).body.code).toBe(
        'THREAD_NOT_WAITING',
      );
    });

    it('refuses to start a workflow it does not know', async () => {
      const response = await request(harness, '/api/threads', { ...alice(), body: { workflowId: 'nope' } });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('WORKFLOW_NOT_FOUND');
    });
  });

  describe('live updates', () => {
    it('streams a change naming the responder when an interaction is answered', async () => {
      const { approvals } = await harness.startReleaseAgent();
      const target = approvals[0]!.interactionId;
      const received = new Promise<string>((resolve, reject) => {
        const stream = get(
          `${harness.baseUrl}/api/events`,
          { headers: { authorization: `Bearer ${harness.tokens['alice']}` } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              text += chunk;
              if (text.includes(': connected'))
                void request(harness, respond(target), { token: harness.tokens['bob']!, body: { action: 'approve' } });
              const line = text
                .split('\n')
                .find(
                  (candidate) =>
                    candidate.startsWith('data:') && candidate.includes('"answered"') && candidate.includes(target),
                );
              if (line !== undefined) {
                stream.destroy();
                resolve(line);
              }
            });
          },
        );
        stream.on('error', reject);
      });
      expect(JSON.parse((await received).slice('data:'.length))).toMatchObject({
        kind: 'interaction',
        reason: 'answered',
        interactionId: target,
        responder: 'web:bob',
      });
    });
    it("ends a signed-in page's stream at sign-out, at the next change", async () => {
      const { cookie, csrf } = await signIn(harness, 'carol');
      let signedOutAt = -1;
      const ended = new Promise<string>((resolve, reject) => {
        const stream = get(`${harness.baseUrl}/api/events`, { headers: { cookie } }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
            if (chunk.includes(': connected')) {
              void (async () => {
                await request(harness, '/api/session', { method: 'DELETE', cookie, csrf });
                signedOutAt = text.length;
                await harness.startReleaseAgent();
              })();
            }
          });
          response.on('end', () => resolve(text));
        });
        stream.on('error', reject);
      });
      const text = await ended;
      expect(signedOutAt).toBeGreaterThan(0);
      expect(text.slice(signedOutAt)).not.toContain('event: change');
    });
  });

  describe('answers from another process', () => {
    it('are noticed by the store watch and pushed to the pages', async () => {
      const { approvals } = await harness.startReleaseAgent();
      // Another Interlock over the same store stands for another process: its events never reach this server.
      const shared = new Proxy(harness.store, {
        get: (target, name, receiver) =>
          name === 'close' ? async () => undefined : Reflect.get(target, name, receiver),
      });
      const elsewhere = await createInterlock({
        store: { type: 'custom', store: shared },
        tools: builtinTools,
        models: { release: createReleaseAgentModel() },
        workspaceRoot: harness.directory,
        recoverOnStart: false,
      });
      await harness.app.liveUpdates.tick();
      const changes: string[] = [];
      const unsubscribe = harness.app.liveUpdates.subscribe((change) => changes.push(change.reason));
      try {
        await elsewhere.respond(
          approvals[0]!.interactionId,
          { approved: false, denyReason: 'from the CLI' },
          { responder: 'cli:dana' },
        );
        await harness.app.liveUpdates.tick();
        expect(changes).toContain('pending-changed');
        expect(changes).not.toContain('answered');
        const state = await request(harness, `/api/interactions/${approvals[0]!.interactionId}`, alice());
        expect(state.body.response.responder).toBe('cli:dana');
      } finally {
        unsubscribe();
        await elsewhere.close();
      }
    });
  });
});
