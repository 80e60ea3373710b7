/**
 * One worker process of the PostgreSQL bench (workers-pg.ts): `createWorker` with the
 * scenario's model and write tool, until SIGTERM; then prints how often the tool's effect
 * ran per thread index, and the statements and network round trips it sent to PostgreSQL
 * since the timed round trips started (SIGUSR2).
 */
import { createWorker, type ModelProvider, type ModelRequest, type ModelResponse } from '@interlock/core';
import { threadCtx, toolEffects } from './common.js';
import { ScenarioModel, workflow, writeFileTool } from './scenario.js';
import { countPgStatements, takePgCounts } from './pg-counter.js';

countPgStatements();
// The answerer's signal that the timed round trips start: count from there.
process.on('SIGUSR2', () => takePgCounts());

/** The scenario's model, told the thread index by the thread id (`t-<i>`), as the harness tells it in-process. */
class WorkerModel implements ModelProvider {
  readonly name = 'scenario-scripted';
  private readonly scenario = new ScenarioModel();

  complete(request: ModelRequest): Promise<ModelResponse> {
    const threadIndex = Number(/^t-(\d+)$/.exec(request.threadId)?.[1] ?? -1);
    return threadCtx.run({ threadIndex }, () => this.scenario.complete(request));
  }
}

const worker = await createWorker({
  store: { type: 'postgres', url: process.env['BENCH_PG_URL'] ?? '', schema: process.env['BENCH_PG_SCHEMA'] ?? '' },
  workflows: [workflow],
  tools: [writeFileTool],
  models: { default: new WorkerModel() },
  concurrency: 8,
});
process.stdout.write('PG-WORKER-READY\n');
await new Promise((resolve) => process.once('SIGTERM', resolve));
const pg = takePgCounts();
await worker.stop();
process.stdout.write(
  `PG-WORKER-RESULT ${JSON.stringify({ effects: Object.fromEntries(toolEffects.perThread), pg })}\n`,
);
process.exit(0);
