// A service that asks (F59): it starts a thread with continueIn 'workers', runs it until its
// call waits for an approver, exports its spans and metrics over OTLP/HTTP, and exits.
// Tests in ../telemetry*.e2e.test.ts. ASKER_CONFIG (JSON): { store, workflow, workspace, endpoint,
// requestedBy? (default web:rita) }.
// Prints ASKER-RESULT {"threadId": …, "status": …}.
import { builtinTools, createInterlock } from '@interlock/core';
import { startTelemetry } from '@interlock/telemetry';

const config = JSON.parse(process.env.ASKER_CONFIG ?? '{}');
// Before createInterlock, so core's metrics are recorded.
const telemetry = startTelemetry({ endpoint: config.endpoint, serviceName: 'release-service', metricsIntervalMs: 200 });
const interlock = await createInterlock({
  store: config.store,
  tools: builtinTools,
  workspaceRoot: config.workspace,
  continueIn: 'workers',
});
const workflow = await interlock.loadWorkflow(config.workflow);
const outcome = await (
  await interlock.start(workflow, { channel: 'web', session: { requestedBy: config.requestedBy ?? 'web:rita' } })
).done();
await interlock.close();
await telemetry.shutdown();
process.stdout.write(`ASKER-RESULT ${JSON.stringify({ threadId: outcome.threadId, status: outcome.status })}\n`);
