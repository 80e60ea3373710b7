import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnProcessGroup, startOtlpReceiver, type OtlpReceiver } from '@interlock/core/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { watch, type Child } from './deployment-harness.js';

const WEB_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const CLI_MAIN = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));
const ASKER = fileURLToPath(new URL('./telemetry-asker.mjs', import.meta.url));

/** What a round trip is made of: the workflow, the approvers' tokens by name, what the asker adds to its config. */
export interface RoundTrip {
  workflow: unknown;
  tokens: Record<string, string>;
  asker?: Record<string, unknown>;
}

/** The round trip under way: the thread the service asked on, and the inbox that answers it. */
export interface RoundTripUnderWay {
  threadId: string;
  /** The thread's status when the service exited. */
  status: string;
  /** interlock-web's address. */
  baseUrl: string;
  /** Stops the web server and the worker (SIGTERM flushes what each still holds) and holds that both exited 0. */
  stop(): Promise<void>;
}

/**
 * The processes of a round trip exporting telemetry (F59) to a collector on 127.0.0.1, as
 * built: `interlock worker` waits for work, a service (deployment/telemetry-asker.mjs) asks
 * and exits, interlock-web serves the inbox to the approvers. One collector and one
 * directory for the test file; every process is stopped after it.
 */
export function telemetryRoundTrip(prefix: string) {
  let receiver: OtlpReceiver;
  let dir: string;
  const children: Child[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    dir = await mkdtemp(join(tmpdir(), `interlock-${prefix}-`));
  });
  afterAll(async () => {
    // Each child leads a process group: this also stops what it started, even after it exited.
    for (const { child } of children) child.kill('SIGKILL');
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  function start(args: string[], env: Record<string, string> = {}): Child {
    const started = watch(
      spawnProcessGroup(process.execPath, args, {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, INTERLOCK_STORE: '', ...env },
      }),
    );
    children.push(started);
    return started;
  }

  async function run({ workflow, tokens, asker = {} }: RoundTrip): Promise<RoundTripUnderWay> {
    const database = join(dir, 'interlock.db');
    const store = `sqlite:${database}`;
    const workspace = join(dir, 'workspace');
    await mkdir(workspace);
    await writeFile(join(dir, 'release.json'), JSON.stringify(workflow));
    await writeFile(
      join(dir, 'interlock.toml'),
      `[telemetry]\nendpoint = "${receiver.endpoint}"\nmetricsInterval = "200ms"\n`,
    );
    await writeFile(
      join(dir, 'approvers.json'),
      JSON.stringify({ approvers: Object.entries(tokens).map(([name, token]) => ({ name, token })) }),
    );
    const config = ['--config', join(dir, 'interlock.toml')];

    const worker = start([CLI_MAIN, 'worker', 'release.json', '--store', store, '--workspace', workspace, ...config]);
    await worker.printed(/Worker ready/);

    const asked = await start([ASKER], {
      ASKER_CONFIG: JSON.stringify({
        store: { type: 'sqlite', path: database },
        workflow: join(dir, 'release.json'),
        workspace,
        endpoint: receiver.endpoint,
        ...asker,
      }),
    }).exit;
    expect(asked.code, asked.stderr).toBe(0);
    const { threadId, status } = JSON.parse(/ASKER-RESULT (.*)/.exec(asked.stdout)?.[1] ?? '{}') as {
      threadId: string;
      status: string;
    };

    const web = start([
      WEB_MAIN,
      '--store',
      store,
      '--port',
      '0',
      '--approvers',
      join(dir, 'approvers.json'),
      ...config,
    ]);
    const [, baseUrl = ''] = await web.printed(/Interlock web inbox: (http:\/\/\S+?)\/\n/);
    return {
      threadId,
      status,
      baseUrl,
      async stop() {
        web.child.kill('SIGTERM');
        worker.child.kill('SIGTERM');
        expect((await web.exit).code).toBe(0);
        expect((await worker.exit).code).toBe(0);
      },
    };
  }

  return {
    get receiver(): OtlpReceiver {
      return receiver;
    },
    run,
  };
}
