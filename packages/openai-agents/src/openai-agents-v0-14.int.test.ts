import { expect, it, vi } from 'vitest';
import { openAiAgentsCases } from './__fixtures__/openai-agents-cases.js';

// The bottom of the peer range: the adapter and these tests run on @openai/agents 0.14.0
// and the openai 6 it was built for, imported under their aliases (F56, F61).
vi.mock('@openai/agents', async () => await import('@openai/agents-v0-14'));
vi.mock('openai', async () => await import('openai-v6'));

openAiAgentsCases('0.14');

it('runs these tests on @openai/agents 0.14, not on the 0.20 the package builds against (F61)', async () => {
  const agents = await import('@openai/agents');
  expect('ModelTimeoutError' in agents).toBe(false);
  expect('run' in agents && 'RunState' in agents).toBe(true);
});
