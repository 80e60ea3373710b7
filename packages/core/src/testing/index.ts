/**
 * @packageDocumentation
 * Fakes for tests and offline demos: a scripted model, a scripted handler, the in-memory
 * store, and a proxy that cuts a PostgreSQL connection as an answer is stored.
 */
export { scriptedModel, type ScriptedModel, type ScriptedTurn } from '../llm/scripted-model.js';
export { scriptedHandler, type ScriptedHandler, type ScriptedAnswer } from './scripted-handler.js';
export { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
export { startCommitCutter, type CommitCutter } from './commit-cutter.js';
