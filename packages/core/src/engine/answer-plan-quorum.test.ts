import { describe, expect, it } from 'vitest';
import { quorumRows } from './__fixtures__/answer-quorum-rows.js';
import { NOW, seenOf } from './__fixtures__/answer-seen.js';
import { planAnswer } from './answer-plan.js';

/* planAnswer by table for a call that needs several approvers (F51); the rows are in __fixtures__/answer-quorum-rows.ts. */

describe('planAnswer: a call that needs several approvers (F51)', () => {
  it.each(quorumRows)('%s', (_name, situation, input, responder, plan) => {
    expect(planAnswer(seenOf(situation), input, responder, NOW)).toMatchObject(plan);
  });
});
