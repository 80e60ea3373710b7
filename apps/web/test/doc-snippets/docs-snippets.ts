import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TmuxTerminal } from '@interlock/core/testing';
import pg from 'pg';
import { expect } from 'vitest';
import type { Sandbox } from './sandbox.js';
import { expectExit, getApi, WEB_STARTED, type SnippetEntry } from './snippet-entry.js';
import { commandsOf, expectTranscript } from './transcript.js';

// docs/cli.md's demo as the terminal showed it: long, so in a file of its own.
import { CLI_DEMO_TERMINAL } from './cli-demo-terminal.js';

/** A terminal in the sandbox, its commands on the PATH, without colour. */
function terminal(box: Sandbox, command: string): Promise<TmuxTerminal> {
  const environment = box.environmentWith();
  return TmuxTerminal.start(command, box.directory, { NO_COLOR: '1', PATH: environment['PATH'] ?? '' });
}

/** The tables of `schema`, in the database at `url`. */
async function tablesIn(url: string, schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
      [schema],
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/**
 * A fragment of docs/persistence.md, run as a module: `createInterlock` (each instance closed
 * at the end), `myStore` (a custom store) and `url` (its own database's) are what it names.
 */
function storesModule(fragment: string): string {
  return `import { createInterlock as create, type Interlock } from '@interlock/core';
import { InMemoryCheckpointStore } from '@interlock/core/testing';
const opened: Interlock[] = [];
const createInterlock = async (options: Parameters<typeof create>[0]) => {
  const interlock = await create(options);
  opened.push(interlock);
  return interlock;
};
const myStore = new InMemoryCheckpointStore();
const url = process.env.DATABASE_URL!;
void myStore;
void url;
${fragment}
for (const interlock of opened) await interlock.close();
console.log('opened ' + opened.length);
`;
}

/** The docs/ marked snippets and their tests (issue 34). */
export const DOCS_SNIPPETS: Record<string, SnippetEntry> = {
  'adapters-install': {
    coveredBy:
      'examples/adapters/packaged-adapters.e2e.test.ts (each adapter packed with scripts/pack-packages.mjs, installed with one plain npm install beside its framework)',
  },
  'cli-recovery': {
    coveredBy:
      'apps/cli/test/crash-recovery.e2e.test.ts (INTERLOCK_CRASH_AT=tool:effect-done:2, then resume, answered done / retry / failed; its terminal in crash-recovery.pty.e2e.test.ts)',
  },
  'cli-demo-terminal': {
    text: CLI_DEMO_TERMINAL,
    async run(text, { sandbox }) {
      const box = await sandbox();
      const [command = ''] = commandsOf(text);
      const session = await terminal(box, command);
      try {
        const prompt = (question: string, choice: string) =>
          session.waitFor((screen) => screen.slice(screen.lastIndexOf(question)).includes(`❯ ${choice}`), 30_000);
        await prompt('? How do you want to answer them?', 'One by one');
        await session.sendKeys('Enter');
        await prompt('? Allow write_file to run with these arguments?', 'Approve');
        await session.sendKeys('Down', 'Down', 'Down', 'Down');
        await prompt('? Allow write_file to run with these arguments?', 'Add an instruction for the model');
        await session.sendKeys('Enter');
        await session.waitFor('? Instruction for the model');
        await session.sendKeys('-l', 'keep the notes short');
        await session.sendKeys('Enter');
        await prompt('? Approve or reject the call together with the instruction?', 'Approve the call');
        await session.sendKeys('Enter');
        await prompt('? Allow bash to run with these arguments?', 'Approve');
        await session.sendKeys('Down', 'Down');
        await prompt('? Allow bash to run with these arguments?', 'Reject');
        await session.sendKeys('Enter');
        await session.waitFor('? Reason, for the model');
        await session.sendKeys('-l', 'not in the demo');
        await session.sendKeys('Enter');
        expectTranscript(await session.waitFor('[exit code', 30_000), text);
      } finally {
        await session.kill();
      }
    },
  },

  // One session of three snippets: a terminal asks, a second answers, the first goes on.
  'cli-run-waits': {
    text: `$ interlock run examples/workflows/plan-approval.toml
...
? Go ahead with this plan?
❯ yes
  no
`,
    async run(text, { sandbox, snippet }) {
      const box = await sandbox();
      const [run = ''] = commandsOf(text);
      const session = await terminal(box, run);
      try {
        expectTranscript(await session.waitFor('❯ yes', 30_000), text);
        const answering = snippet('cli-pending-respond');
        const [pending = '', respond = '', status = ''] = commandsOf(answering);
        const listed = await box.run(pending);
        expectExit(listed, 0);
        const interactionId = /^([0-9a-f-]{36}) {2}UPDATE_VARIABLES$/m.exec(listed.stdout)?.[1] ?? '';
        // The id the document shows is this run's.
        const answered = await box.run(respond.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, interactionId));
        expect(status).toBe('echo $?');
        expectExit(answered, 0);
        const [, afterPending = ''] = answering.split(`$ ${respond}\n`);
        expectTranscript(listed.stdout, answering.split(`$ ${respond}\n`)[0] ?? '');
        expectTranscript(answered.stdout, afterPending.split('$ echo $?')[0] ?? '');
        expect(afterPending.split('$ echo $?\n')[1]?.trim()).toBe(String(answered.code));
        expectTranscript(await session.waitFor('[exit code', 30_000), snippet('cli-answer-taken'));
      } finally {
        await session.kill();
      }
    },
  },
  'cli-pending-respond': {
    text: `$ interlock pending
1 interaction waits for an answer in sqlite:.interlock/interlock.db:

1f3ef714-8ff2-4518-a2c9-c49964936384  UPDATE_VARIABLES
  thread 4edfe5d6-fa23-4fe0-80a0-9bf64d69a362 · workflow "plan-approval" · node "ask" · channel cli · asked 2026-11-22T22:30:47.509Z · no deadline
  Go ahead with this plan?
  Plan for "Add a --json flag to the report command":
  1. Read the code it touches and list what must change.
  2. Make the change, with a test that shows it works.
  3. Run the whole test suite and update the docs.
  input: one of: yes | no
  answer: interlock respond 1f3ef714-8ff2-4518-a2c9-c49964936384 answer '<yes|no>'

$ interlock respond 1f3ef714-8ff2-4518-a2c9-c49964936384 answer yes
✓ answered "yes": stored for interaction 1f3ef714-8ff2-4518-a2c9-c49964936384; another process is taking thread 4edfe5d6-fa23-4fe0-80a0-9bf64d69a362 forward and applies it.
$ echo $?
0
`,
    coveredBy: 'cli-run-waits (this file): the second terminal of its session',
  },
  'cli-answer-taken': {
    text: `◆ question from node "ask" (UPDATE_VARIABLES)
✓ answered by cli:root: "yes"
  approved = true
› decide (ROUTE)
› execute (LLM)
  Done: carried out the approved plan for "Add a --json flag to the report command". All 3 steps finished and the tests pass.
› end (END)
✔ completed · 6 steps · thread 4edfe5d6-fa23-4fe0-80a0-9bf64d69a362
`,
    coveredBy: 'cli-run-waits (this file): the first terminal, once answered',
  },

  'cli-demo-piped': {
    text: `$ printf 'y\\nn: not now\\n' | interlock demo coding-agent
`,
    async run(text, { sandbox }) {
      const [line = ''] = commandsOf(text);
      const ran = await (await sandbox()).run(line);
      expectExit(ran, 0);
      expect(ran.stdout).toContain('> y\n  → approved');
      expect(ran.stdout).toContain('> n: not now\n  → rejected: not now');
      expect(ran.stdout).toContain('✔ completed');
    },
  },

  'config-example': {
    text: `"$schema" = "node_modules/@interlock/sdk-types/interlock.schema.json"
workflows = ["workflows"]

[store]
type = "postgres"
urlEnv = "DATABASE_URL"

[models.default]
provider = "openai"
model = "gpt-4o-mini"

[approval]
mode = "autoEdit"
denyRules = ['tool == "bash" && args.command.contains("terraform destroy")']
toolOverrides = { http_fetch = "deny" }

[approval.shell]
safePrograms = ["make"]
extraHighRisk = [{ id = "kubectl-apply", programs = ["kubectl"], reason = "changes a cluster", subcommands = ["apply"] }]

[approval.quorum]
required = 2
minRisk = "HIGH"
escalation = { after = "30m", approvers = ["web:oncall-lead"] }

[approvers.separationOfDuties]
"*" = ["HIGH"]

[telemetry]
endpoint = "http://otel-collector:4318"
`,
    coveredBy: 'config-check (this file): its interlock.toml',
  },
  'config-check': {
    text: `$ interlock config check
valid: /work/app/interlock.toml
$ interlock explain bash '{"command":"terraform destroy"}'
deny: bash {"command":"terraform destroy"} would be refused
  rule    deny-rule:0
  …
decided by: /work/app/interlock.toml: approval.denyRules[0]
`,
    async run(text, { sandbox, snippet, database }) {
      const box = await sandbox();
      const { url } = await database('config_example');
      await box.write('interlock.toml', snippet('config-example'));
      await box.write('workflows/.keep', '');
      // A machine the file is meant for: its model's key is set (else check warns of it).
      const environment = { DATABASE_URL: url, OPENAI_API_KEY: 'sk-doc-snippet' };
      const [check = '', explain = ''] = commandsOf(text);
      const [checked, explained] = [await box.run(check, { environment }), await box.run(explain, { environment })];
      expectExit(checked, 0);
      const transcript = text.replaceAll('/work/app/', `${box.directory}/`);
      expectTranscript(`${checked.stdout}${explained.stdout}`, transcript);
      // Its [store] is the store of every command: the database's current schema.
      expectExit(await box.run('interlock threads --json', { environment }), 0);
      expect(await tablesIn(url, 'public')).toContain('threads');
      expect(await tablesIn(url, 'public_jobs')).toContain('_private_jobs');
    },
  },

  'persistence-stores': {
    text: `await createInterlock({ store: { type: 'sqlite' } }); // .interlock/interlock.db
await createInterlock({ store: { type: 'sqlite', path: 'data/app.db' } });
await createInterlock({ store: { type: 'postgres', url: process.env.DATABASE_URL!, schema: 'interlock' } });
await createInterlock({ store: { type: 'memory' } }); // the default of the library
await createInterlock({ store: { type: 'custom', store: myStore } }); // any ICheckpointStore
`,
    async run(text, { sandbox, database }) {
      const box = await sandbox();
      const { url } = await database('persistence_stores');
      const ran = await box.module(storesModule(text), { DATABASE_URL: url });
      expectExit(ran, 0);
      expect(ran.stdout).toContain('opened 5');
      for (const file of ['.interlock/interlock.db', 'data/app.db'])
        expect(existsSync(join(box.directory, file))).toBe(true);
      expect(await tablesIn(url, 'interlock')).toContain('threads');
      expect(await tablesIn(url, 'interlock_jobs')).toContain('_private_jobs');
    },
  },
  'persistence-sqlite-sync': {
    text: `await createInterlock({ store: { type: 'sqlite', path: 'data/app.db' } }); // synchronous FULL
await createInterlock({ store: { type: 'sqlite', path: 'data/app.db', synchronous: 'normal' } });
await createInterlock({ store: { type: 'sqlite', path: 'data/app.db', groupCommit: true } });
`,
    async run(text, { sandbox }) {
      const box = await sandbox();
      const ran = await box.module(storesModule(text));
      expectExit(ran, 0);
      expect(ran.stdout).toContain('opened 3');
      expect(existsSync(join(box.directory, 'data/app.db'))).toBe(true);
    },
  },
  'persistence-postgres-timeouts': {
    text: `await createInterlock({
  store: { type: 'postgres', url, timeouts: { connectMs: 5_000, statementMs: 10_000, idleInTransactionMs: 10_000 } },
});
`,
    async run(text, { sandbox, database }) {
      const { url } = await database('persistence_timeouts');
      const ran = await (await sandbox()).module(storesModule(text), { DATABASE_URL: url });
      expectExit(ran, 0);
      expect(await tablesIn(url, 'public')).toContain('threads');
    },
  },

  'web-deployment': {
    text: `interlock worker workflows/release-note.toml --store "$DATABASE_URL"   # the CLI's tools; a service calls createWorker()
interlock-web --store "$DATABASE_URL" --host 0.0.0.0                   # one or several, behind a proxy
`,
    // The inbox on a port of its own (--port 0): its default, 7878, may be taken on a shared machine.
    async run(text, { sandbox, snippet, database }) {
      const box = await sandbox();
      const { url } = await database('web_deployment');
      await box.write('workflows/release-note.toml', snippet('deploying-release-note-workflow'));
      const environment = { DATABASE_URL: url };
      const [worker = '', web = ''] = text.split('\n').map((line) => line.replace(/\s+#.*$/, ''));
      await box.start(worker, /Worker ready: serving release-note/, environment);
      const [, port = '', token = ''] = await box.start(`${web} --port 0`, WEB_STARTED, environment);
      const { status, body } = await getApi(port, token, '/api/workflows');
      expect(status).toBe(200);
      expect((body as { workflows: { id: string }[] }).workflows.map((workflow) => workflow.id)).toEqual([
        'release-note',
      ]);
    },
  },
};
