// Writes workflow.schema.json from the zod schema, for editors (F1).
// Usage: node scripts/generate-json-schema.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WorkflowDefinition } from '../dist/index.js';
import { renderWorkflowJsonSchema } from './workflow-json-schema.mjs';

const target = fileURLToPath(new URL('../workflow.schema.json', import.meta.url));
const text = renderWorkflowJsonSchema(WorkflowDefinition);

if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== text) {
    console.error('workflow.schema.json is stale: run `pnpm schema`.');
    process.exit(1);
  }
  console.log('workflow.schema.json is up to date.');
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
