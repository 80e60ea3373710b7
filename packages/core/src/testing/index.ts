/**
 * @packageDocumentation
 * Fakes for tests and offline demos: a scripted model, a scripted handler, and the
 * in-memory store.
 */
export { scriptedModel, type ScriptedModel, type ScriptedTurn } from '../llm/scripted-model.js';
export { scriptedHandler, type ScriptedHandler, type ScriptedAnswer } from './scripted-handler.js';
export { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
