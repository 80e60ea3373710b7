// Copies the demos' workflows (examples/workflows) into dist/workflows/, so that `interlock demo`
// works from the installed package too, where the repository's examples/ is not.
import { copyFile, mkdir } from 'node:fs/promises';

const target = new URL('../dist/workflows/', import.meta.url);
await mkdir(target, { recursive: true });
for (const name of ['plan-approval.toml', 'coding-agent.toml'])
  await copyFile(new URL(`../../../examples/workflows/${name}`, import.meta.url), new URL(name, target));
