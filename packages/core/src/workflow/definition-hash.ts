import { createHash } from 'node:crypto';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import { canonicalJson } from '../policy/canonical-arguments.js';

const hashes = new WeakMap<WorkflowDefinition, string>();

/**
 * The identity of a workflow definition's content: SHA-256 of its canonical JSON (keys
 * sorted, defaults applied). Two definitions with the same id and version but another
 * hash are different workflows; a thread is bound to the hashes it started with.
 */
export function definitionHash(definition: WorkflowDefinition): string {
  let hash = hashes.get(definition);
  if (hash === undefined) {
    hash = createHash('sha256').update(canonicalJson(definition)).digest('hex');
    hashes.set(definition, hash);
  }
  return hash;
}
