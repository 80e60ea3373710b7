import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinTools, createInterlock, createWorker, loadProjectConfig } from '@interlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPOSITORY_ROOT, runBuiltCli } from './built-cli.js';

/*
 * Issue 16: one checked-in examples/interlock.toml, and the same call decided the same way
 * by `interlock explain` (the CLI, its own process), by a worker (`createWorker`) and by code
 * (`createInterlock({ config })`).
 */
const CALLS: [string, Record<string, unknown>][] = [
  ['bash', { command: 'terraform destroy -auto-approve' }],
  ['write_file', { path: 'secrets/token.txt', content: 'x' }],
  ['write_file', { path: 'NOTES.md', content: 'x' }],
  ['edit_file', { path: 'NOTES.md', oldText: 'a', newText: 'b' }],
  ['bash', { command: 'kubectl apply -f deploy.yaml' }],
  ['bash', { command: 'make build' }],
  ['read_file', { path: 'README.md' }],
];

let directory: string;
let config: string;
beforeAll(async () => {
  assertBuilt();
  directory = await mkdtemp(join(tmpdir(), 'interlock-same-decision-'));
  // The example as checked in, its relative paths resolved from its own directory.
  config = join(directory, 'interlock.toml');
  const example = await readFile(join(REPOSITORY_ROOT, 'examples', 'interlock.toml'), 'utf8');
  await writeFile(
    config,
    example
      .replace(
        'workflows = ["workflows"]',
        `workflows = [${JSON.stringify(join(REPOSITORY_ROOT, 'examples', 'workflows'))}]`,
      )
      .replace('path = "../.interlock/interlock.db"', 'path = "interlock.db"'),
  );
  await copyFile(join(REPOSITORY_ROOT, 'README.md'), join(directory, 'README.md'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('examples/interlock.toml decides a call the same way everywhere (issue 16)', () => {
  it('in interlock explain, in a worker and in createInterlock({ config })', async () => {
    const loaded = await loadProjectConfig(config);
    const code = await createInterlock({ config: loaded, workspaceRoot: directory });
    const worker = await createWorker({
      config: loaded,
      store: { type: 'sqlite', path: join(directory, 'worker.db') },
      workflows: [join(REPOSITORY_ROOT, 'examples', 'workflows', 'coding-agent.toml')],
      tools: builtinTools,
      workspaceRoot: directory,
    });
    try {
      const decisions: Record<string, string[]> = { explain: [], worker: [], code: [] };
      for (const [toolName, parameters] of CALLS) {
        const run = await runBuiltCli(
          ['explain', toolName, JSON.stringify(parameters), '--json', '--config', config, '--workspace', directory],
          '',
          15_000,
          {},
          directory,
        );
        const printed = JSON.parse(run.stdout) as { outcome: string; rule: string };
        decisions['explain']?.push(`${printed.outcome} ${printed.rule}`);
        for (const [name, interlock] of [
          ['worker', worker.interlock],
          ['code', code],
        ] as const) {
          const decision = interlock.explain({ toolName, arguments: parameters }, { channel: 'cli' });
          decisions[name]?.push(`${decision.outcome} ${decision.rule}`);
        }
      }
      expect(decisions['explain']).toEqual([
        'deny deny-rule:0',
        'deny deny-rule:1',
        'ask ask:risk:MEDIUM',
        'ask override:edit_file', // toolOverrides: true means "always ask" (seed 003)
        'ask shell:high-risk:kubectl-apply',
        'ask ask:risk:HIGH', // bash is HIGH: a safe program is still asked about in default mode
        'allow category:read',
      ]);
      expect(decisions['worker']).toEqual(decisions['explain']);
      expect(decisions['code']).toEqual(decisions['explain']);
    } finally {
      await worker.stop();
      await code.close();
    }
  }, 60_000);
});
