// Writes workflow.schema.json and interlock.schema.json (the project file) from the zod
// schemas, for editors (F1). Usage: node scripts/generate-json-schema.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ProjectConfig, WorkflowDefinition } from '../dist/index.js';
import { renderJsonSchema } from './workflow-json-schema.mjs';

const files = [
  ['workflow.schema.json', renderJsonSchema(WorkflowDefinition, 'Interlock workflow')],
  ['interlock.schema.json', renderJsonSchema(ProjectConfig, 'Interlock project file (interlock.toml)')],
];

let stale = false;
for (const [name, text] of files) {
  const target = fileURLToPath(new URL(`../${name}`, import.meta.url));
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // missing: stale
    }
    if (current !== text) {
      console.error(`${name} is stale: run \`pnpm schema\`.`);
      stale = true;
    } else {
      console.log(`${name} is up to date.`);
    }
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  }
}
if (stale) process.exit(1);
