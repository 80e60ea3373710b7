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
process.on('SIGUSR2', () => {
  takePgCounts();
  cpuAtStart = process.cpuUsage();
  jobs.recovered.clear();
  jobs.byPoll.clear();
  jobs.ran = 0;
});
let cpuAtStart = process.cpuUsage();

/** The scenario's model, told the thread index by the thread id (`t-<i>`), as the harness tells it in-process. */
class WorkerModel implements ModelProvider {
  readonly name = 'scenario-scripted';
  private readonly scenario = new ScenarioModel();

  complete(request: ModelRequest): Promise<ModelResponse> {
    const threadIndex = Number(/^t-(\d+)$/.exec(request.threadId)?.[1] ?? -1);
    return threadCtx.run({ threadIndex }, () => this.scenario.complete(request));
  }
}

/** What the worker's jobs came to since the timed round trips started: threads recovered, and found by a poll. */
const jobs = { recovered: new Set<string>(), byPoll: new Set<string>(), ran: 0 };
const worker = await createWorker({
  store: { type: 'postgres', url: process.env['BENCH_PG_URL'] ?? '', schema: process.env['BENCH_PG_SCHEMA'] ?? '' },
  workflows: [workflow],
  tools: [writeFileTool],
  models: { default: new WorkerModel() },
  concurrency: 8,
  onJob: ({ job, outcome, byPoll }) => {
    jobs.ran += 1;
    if (outcome.status === 'done' && outcome.note === 'recovered') jobs.recovered.add(job.threadId);
    // A continuation a poll found waited for it (a recovery is found by a poll by design: it is due later).
    if (byPoll && job.kind === 'continue') jobs.byPoll.add(job.threadId);
  },
});
process.stdout.write('PG-WORKER-READY\n');
await new Promise((resolve) => process.once('SIGTERM', resolve));
const pg = takePgCounts();
const cpu = process.cpuUsage(cpuAtStart);
await worker.stop();
const result = {
  effects: Object.fromEntries(toolEffects.perThread),
  pg,
  cpuMs: (cpu.user + cpu.system) / 1000,
  recovered: [...jobs.recovered],
  byPoll: [...jobs.byPoll],
  jobsRan: jobs.ran,
};
process.stdout.write(`PG-WORKER-RESULT ${JSON.stringify(result)}\n`);
process.exit(0);
