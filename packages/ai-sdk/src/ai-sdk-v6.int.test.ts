import { expect, it, vi } from 'vitest';
import { aiSdkCases } from './__fixtures__/ai-sdk-cases.js';

// The bottom of the peer range: the adapter and these tests run on AI SDK 6.0.0 and the
// provider package of its provider spec, imported under their aliases (F56, F61).
vi.mock('ai', async () => await import('ai-v6'));
vi.mock('@ai-sdk/openai-compatible', async () => await import('@ai-sdk/openai-compatible-v2'));

aiSdkCases(6);

it('runs these tests on AI SDK 6, not on the 7 the package builds against (F61)', async () => {
  const ai = await import('ai');
  expect('experimental_toolCaller' in ai).toBe(false);
  expect('tool' in ai && 'generateText' in ai).toBe(true);
});
