import { expect } from 'vitest';
import { hashArguments } from '../../index.js';
import {
  chargesOf,
  execution,
  pendingOf,
  questions,
  runWorker,
  startWorker,
  threadOf,
  type Run,
  type RunState,
  type StoreName,
  type WorkerResult,
} from './crash-harness.js';

/*
 * What the crash tests (crash-recovery*.int.test.ts) share beyond the harness: the stores they
 * run on, the workers a test kills or a person drives, and the promises checked after a kill.
 */

export const STORES: StoreName[] = ['SQLite', 'PostgreSQL'];

/** `pnpm test:soak`: the heavy scenarios at a larger scale (more kills, threads, processes). */
export const SOAK = process.env['INTERLOCK_SOAK'] === '1';

export function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, not ${process.env[name]}`);
  return value;
}

/** Runs a worker that must die by SIGKILL: at the failpoint `point`, or where its config says. */
export async function crashWorker(run: Run, config: Record<string, unknown>, point?: string): Promise<void> {
  const { signal, code, result, stderr } = await startWorker(run, config, point === undefined ? {} : { crashAt: point })
    .exit;
  expect(
    { signal, code, printed: result, stderr },
    `the worker should have died at ${point ?? JSON.stringify(config)}`,
  ).toMatchObject({
    signal: 'SIGKILL',
    code: null,
    printed: undefined,
  });
}

/**
 * Promise 1: every effect in the witness has a stored approval of that tool bound to the hash
 * of exactly the arguments it ran with; a charge was approved by a person who said yes.
 */
export function expectEveryEffectApproved(state: RunState): void {
  for (const line of state.witness) {
    const [effect, threadId = '', toolCallId = '', argument = ''] = line.split(' ');
    const record = execution(state, threadId, toolCallId);
    const [toolName, args] =
      effect === 'charged' ? ['charge', { amount: Number(argument) }] : ['lookup', { customer: argument }];
    expect(record, `the effect "${line}" has a stored approval`).toMatchObject({
      toolName,
      argumentsHash: hashArguments(args),
      arguments: args,
    });
    if (toolName !== 'charge') continue;
    expect(record?.approvedBy, line).toMatch(/^person/);
    const approvals = questions(state, threadId, toolCallId, 'execution');
    expect(
      approvals.map((interaction) => ({ status: interaction.status, input: interaction.response?.input })),
      `the person's approval of "${line}"`,
    ).toContainEqual({ status: 'processed', input: { approved: true } });
  }
}

/**
 * What holds at the end of every named-point run: the thread completed with the person's note
 * and tells the model both calls succeeded; the model was asked twice in all (promise 4: never
 * again for a stored turn); the person was asked once per decision (promise 4) and nothing
 * waits; every effect was approved (promise 1).
 */
export function expectFinishedOnce(state: RunState, run: Run, note: string, charges: number): void {
  const thread = threadOf(state, run.threadId);
  expect({ status: thread.status, output: thread.output }).toEqual({ status: 'completed', output: note });
  const told = thread.conversation
    .filter((message) => message.role === 'tool')
    .map((message) => `${message.toolCallId} ${message.content.split(' ')[0]}`);
  expect(told).toEqual(['charge-1 [SUCCESS]', 'lookup-1 [SUCCESS]']);
  expect(state.modelCalls).toEqual([`model-call ${run.threadId}`, `model-call ${run.threadId}`]);
  expect(questions(state, run.threadId, 'charge-1', 'execution')).toHaveLength(1);
  expect(questions(state, run.threadId, 'lookup-1')).toHaveLength(0);
  expect(questions(state, run.threadId, null).map((interaction) => interaction.status)).toEqual(['processed']);
  expect(pendingOf(state, run.threadId)).toEqual([]);
  expect(chargesOf(state, run.threadId)).toEqual(
    Array.from({ length: charges }, () => `charged ${run.threadId} charge-1 42`),
  );
  expect(execution(state, run.threadId, 'charge-1')).toMatchObject({
    status: 'finished',
    argumentsHash: hashArguments({ amount: 42 }),
  });
  expectEveryEffectApproved(state);
}

/**
 * No lost answer: every question still pending, and every answer stored but not yet applied,
 * belongs to a thread that waits on it (and so will apply it when it goes on).
 */
export function expectNoLostAnswer(state: RunState, context: string): void {
  const unawaited = state.interactions.filter((interaction) => {
    if (interaction.status !== 'pending' && interaction.status !== 'responded') return false;
    const thread = state.threads.find((candidate) => candidate.threadId === interaction.threadId);
    return !thread?.pendingInteractionIds.includes(interaction.interactionId);
  });
  expect(
    unawaited.map((interaction) => ({
      threadId: interaction.threadId,
      nodeId: interaction.nodeId,
      status: interaction.status,
      toolCallId: interaction.request.toolApproval?.toolCallId,
    })),
    `questions or answers that no thread waits for, ${context}`,
  ).toEqual([]);
}

/** Approves the charge. */
export const APPROVE = { approved: true };

/**
 * Starts the thread in a worker where a person answers its questions as they come (`answers`),
 * and kills it at `point`.
 */
export function crashSession(run: Run, answers: unknown[], point: string): Promise<void> {
  return crashWorker(run, { mode: 'start', answers }, point);
}

export function person(
  run: Run,
  options: { note: string; recovery?: 'done' | 'retry'; repeatAnswers?: string[] },
): Promise<WorkerResult> {
  return runWorker(run, { mode: 'person', person: options });
}

/** What each step of the person's worker answered (the stage of an approval, else the operation), or `resume`. */
export function stepsOf(result: WorkerResult): string[] {
  return (result.steps ?? []).map((step) => step.stage ?? step.operationType ?? step.action);
}
