/**
 * @packageDocumentation
 * Fakes for tests and offline demos: a scripted model, a scripted handler, the in-memory
 * store, a proxy that cuts a PostgreSQL connection as an answer is stored, a `note` tool, a
 * shell classifier that calls everything safe, `until`, a wait on what a process reports, and a
 * local server speaking OpenAI's chat completions (streaming included) for frameworks under test,
 * a child process read as JSON lines, a TCP gate that can cut a database's connections, a
 * PostgreSQL database of a test's own (for the store's defaults), an OTLP/HTTP collector
 * that keeps the spans, metrics and raw bodies processes export, processes started in a
 * group of their own, so that stopping one stops what it started, and a service that
 * refuses calls without a valid approval receipt.
 */
export { scriptedModel, type ScriptedModel, type ScriptedTurn } from '../llm/scripted-model.js';
export { scriptedHandler, type ScriptedHandler, type ScriptedAnswer } from './scripted-handler.js';
export { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
export { startCommitCutter, type CommitCutter } from './commit-cutter.js';
export { until, type UntilOptions } from './until.js';
export { noteTool, safeShellClassifier } from './test-tools.js';
export {
  startChatCompletionsServer,
  type ChatCompletionsServer,
  type ScriptedCompletion,
} from './chat-completions-server.js';
export { startJsonLineChild, type JsonLineChild } from './json-line-child.js';
export { tcpGate, type TcpGate } from './tcp-gate.js';
export { ownDatabase, type OwnDatabase } from './own-database.js';
export { startOtlpReceiver, type OtlpReceiver, type ReceivedMetric, type ReceivedSpan } from './otlp-receiver.js';
export {
  EXPECTED_REFUSALS,
  forgedReceipt,
  refusalsOf,
  startReceiptService,
  type ReceiptService,
  type ServiceCall,
} from './receipt-service.js';
export { spawnProcessGroup, stopProcessGroup } from './process-group.js';
