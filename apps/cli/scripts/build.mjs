// Builds the `interlock` bin as one ES module, dist/main.js: the CLI's sources with core and
// every pure-JavaScript dependency bundled in. A command starts by loading one file instead of
// about 1,200 modules (rxjs, inversify, zod, core…), which was two-thirds of its start-up time.
// Then copies the demos' workflows into dist/workflows/, so that `interlock demo` works from an
// installed copy too, where the repository's examples/ is not.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Loaded from node_modules at run time, not bundled: native addons, packages that read their
// own files (WebAssembly grammars, SQL migrations), and large ones only some commands load
// (PostgreSQL, the model providers, telemetry). Each is a dependency of this package, so it
// resolves from dist/.
const EXTERNAL = [
  '@anthropic-ai/sdk',
  '@interlock/telemetry',
  'better-sqlite3',
  'graphile-worker',
  'openai',
  'pg',
  'tree-sitter-bash',
  'typeorm',
  'web-tree-sitter',
];

const manifest = createRequire(import.meta.url)('../package.json');
const missing = EXTERNAL.filter((name) => !(name in manifest.dependencies));
if (missing.length > 0) throw new Error(`add ${missing.join(', ')} to apps/cli's dependencies: the bin loads them`);

const dist = new URL('../dist/', import.meta.url);
await rm(dist, { recursive: true, force: true });
await build({
  entryPoints: [fileURLToPath(new URL('../src/main.ts', import.meta.url))],
  outdir: fileURLToPath(dist),
  bundle: true,
  // What a command imports only when it needs it (the PostgreSQL store, the MCP HTTP server…)
  // goes to a chunk of its own beside main.js, loaded then, with the packages it imports.
  splitting: true,
  chunkNames: '[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node22',
  external: EXTERNAL,
  // The CommonJS packages in the bundle require Node's built-in modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  logLevel: 'warning',
});

const workflows = new URL('workflows/', dist);
await mkdir(workflows, { recursive: true });
for (const name of ['plan-approval.toml', 'coding-agent.toml'])
  await copyFile(new URL(`../../../examples/workflows/${name}`, import.meta.url), new URL(name, workflows));
