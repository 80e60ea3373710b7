import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { REPOSITORY } from './sandbox.js';
import { afterBuild, expectExit, getApi, WEB_STARTED, type SnippetEntry } from './snippet-entry.js';

const PACKAGED = 'apps/web/test/packaged-deployment.e2e.test.ts (the README\u2019s "Deploying", verbatim)';

/** The README's marked snippets and their tests (issue 34). */
export const README_SNIPPETS: Record<string, SnippetEntry> = {
  'quick-start': {
    text: `# install, then run the main demo (SQLite file under .interlock/, scripted model, no API key)
npm install -g pnpm@10.34.8 && pnpm install && pnpm demo

# install, then run everything CI checks (build, lint, typecheck, tests)
npm install -g pnpm@10.34.8 && pnpm install && pnpm test
`,
    // The installs and `pnpm test` are CI's own lines (.ci/run); `pnpm demo` runs here, after the build.
    async run(text, { sandbox }) {
      const ci = readFileSync(join(REPOSITORY, '.ci/run'), 'utf8');
      const manifest = JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { packageManager: string };
      for (const line of text.split('\n').filter((each) => each !== '' && !each.startsWith('#'))) {
        const [global, install, command] = line.split(' && ');
        expect(global).toBe(`npm install -g ${manifest.packageManager}`);
        expect(ci).toContain(global);
        expect(install).toBe('pnpm install');
        expect(ci).toMatch(/pnpm install --frozen-lockfile/);
        if (command === 'pnpm test') expect(ci).toMatch(/^pnpm test$/m);
        else {
          expect(command).toBe('pnpm demo');
          const box = await sandbox();
          const ran = await box.run(afterBuild('demo'), { stdin: 'yes\n' });
          expectExit(ran, 0);
          expect(ran.stdout).toContain('✔ completed');
          expect(existsSync(join(box.directory, '.interlock/interlock.db'))).toBe(true);
        }
      }
    },
  },

  'agent-demo': {
    text: `pnpm build && pnpm exec interlock demo coding-agent
pnpm exec interlock explain bash '{"command":"rm -rf /"}'   # deny, and why
`,
    async run(text, { sandbox }) {
      const [demo = '', explain = ''] = text.split('\n');
      const box = await sandbox();
      // `pnpm build &&`: the tests run on the build.
      expect(demo.startsWith('pnpm build && ')).toBe(true);
      const ran = await box.run(demo.slice('pnpm build && '.length), { stdin: 'y\nn: not now\n' });
      expectExit(ran, 0);
      expect(ran.stdout).toContain('bash(rm -rf /) → deny (rule shell:banned:rm-root)');
      expect(ran.stdout).toContain('write_file(NOTES.md) ✔ SUCCESS');
      const denied = await box.run(explain);
      expectExit(denied, 0);
      expect(denied.stdout).toMatch(/^deny: bash \{"command":"rm -rf \/"\} would be refused/);
    },
  },

  'web-demo': {
    text: `pnpm demo:web     # after pnpm install: http://127.0.0.1:7878/, prints the sign-in token
`,
    // On a port of its own (--port 0): 7878 may be taken on a shared machine; its help says it is the default.
    async run(text, { sandbox }) {
      expect(text).toMatch(
        /^pnpm demo:web\s+# after pnpm install: http:\/\/127\.0\.0\.1:7878\/, prints the sign-in token/,
      );
      const box = await sandbox();
      const help = await box.run(`${afterBuild('demo:web').replace(' --demo', '')} --help`);
      expect(help.stdout).toMatch(/--port PORT\s+default 7878/);
      const [, port = '', token = ''] = await box.start(`${afterBuild('demo:web')} --port 0`, WEB_STARTED);
      const { status, body } = await getApi(port, token, '/api/interactions');
      expect(status).toBe(200);
      expect((body as { interactions: unknown[] }).interactions.length).toBeGreaterThan(0);
    },
  },

  'deploying-install': { coveredBy: PACKAGED },
  'deploying-refund-workflow': { coveredBy: PACKAGED },
  'deploying-release-note-workflow': { coveredBy: PACKAGED },
  'deploying-service': { coveredBy: PACKAGED },
  'deploying-run': { coveredBy: PACKAGED },

  'public-api': {
    text: `import { createInterlock, ofType, scriptedModel } from '@interlock/core';

const interlock = await createInterlock({
  models: { default: scriptedModel(['1. Read the code 2. Add the flag 3. Test it', 'Done.']) },
  // no handler for channel 'inbox': its questions wait durably for respond()
});
const workflow = await interlock.loadWorkflow('examples/workflows/plan-approval.toml');
const thread = await interlock.start(workflow, { channel: 'inbox', input: { task: 'Add --json' } });
thread.events$.pipe(ofType('USER_INTERACTION_REQUESTED')).subscribe((event) => {
  console.log('asked:', event.request.prompt);
});
console.log(await thread.done()); // { status: 'waiting', pendingInteractionIds: [...] }

const [question] = await interlock.pending();
if (!question) throw new Error('nothing is waiting for an answer');
const answer = await interlock.respond(question.interactionId, 'yes', { responder: 'ada' });
if (answer.status === 'accepted' && answer.thread) console.log(await answer.thread.done()); // { status: 'completed', … }
await interlock.close();
`,
    async run(text, { sandbox }) {
      const ran = await (await sandbox()).module(text);
      expectExit(ran, 0);
      expect(ran.stdout).toContain('asked: Go ahead with this plan?');
      expect(ran.stdout).toContain("status: 'waiting'");
      expect(ran.stdout).toContain("status: 'completed'");
    },
  },
};
