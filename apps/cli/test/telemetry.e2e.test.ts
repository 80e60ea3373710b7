import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startOtlpReceiver, until, type OtlpReceiver } from '@interlock/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './built-cli.js';
import { cliIn, createWorkingDirectory, jsonOf, type Detached } from './cross-process.js';

/*
 * F59, issue 37: with `[telemetry]` in the project file, the CLI exports its spans, and a
 * thread started by one CLI process and answered by another is one trace.
 */
let receiver: OtlpReceiver;
let directory: string;
beforeAll(async () => {
  assertBuilt();
  receiver = await startOtlpReceiver();
  directory = await createWorkingDirectory('interlock-cli-telemetry-');
  await writeFile(join(directory, 'interlock.toml'), `[telemetry]\nendpoint = "${receiver.endpoint}"\n`);
});
afterAll(async () => {
  await receiver.close();
  await rm(directory, { recursive: true, force: true });
});

describe('the CLI with [telemetry] (F59, issue 37)', () => {
  it('exports the spans of a thread it starts and of the answer it gives, in the thread’s one trace', async () => {
    const started = await cliIn(directory, ['run', 'ask.toml', '--detach', '--json']);
    expect(started.exitCode, started.stderr).toBe(3);
    const { threadId, pendingInteractionIds } = jsonOf<Detached>(started);
    const answered = await cliIn(directory, ['respond', pendingInteractionIds[0] ?? '', 'answer', 'yes']);
    expect(answered.exitCode, answered.stderr).toBe(0);

    // Each process flushes its spans as it closes.
    const spans = await until(
      'the spans of both processes',
      () => receiver.spans.filter((span) => span.attributes['interlock.thread.id'] === threadId),
      (found) =>
        found.some((span) => span.name === 'interlock.respond') &&
        found.some((span) => span.name === 'interlock.start'),
    );
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['interlock-cli']));
    const start = spans.find((span) => span.name === 'interlock.start');
    const trace = receiver.spans.filter((span) => span.traceId === start?.traceId);
    expect(trace.map((span) => span.name)).toEqual(
      expect.arrayContaining(['interlock.start', 'interlock.run', 'interlock.respond']),
    );
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  });
});
