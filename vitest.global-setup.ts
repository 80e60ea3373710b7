import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Says which Node runs the tests, and fails the run if a process the suite started is still
 * alive when the tests are over (issue 40): every process a test starts inherits
 * INTERLOCK_TEST_RUN, a mark of this run, through its environment, so the teardown finds
 * what was left behind by that mark, kills it (its whole process group) and says what it was.
 * Tests start processes with `spawnProcessGroup` (@interlock/core/testing), so stopping one
 * stops what it started too.
 */
export default function setup(): () => Promise<void> {
  // Which Node runs the suite (F55, F61): 24 under `pnpm test`, 26 and 22 in CI's later runs.
  console.log(`Tests on Node ${process.version}`);
  // The tests start the built CLI and web app hundreds of times: Node's compile cache spares
  // each start compiling the same modules again (a quarter of a CLI start's CPU).
  process.env['NODE_COMPILE_CACHE'] ??= fileURLToPath(
    new URL('node_modules/.cache/node-compile-cache', import.meta.url),
  );
  const mark = `INTERLOCK_TEST_RUN=${randomUUID()}`;
  const [name = '', value = ''] = mark.split('=');
  process.env[name] = value;
  return async () => {
    const left = await leftBehind(mark);
    if (left.length === 0) return;
    for (const { pid } of left) kill(pid);
    throw new Error(
      `${left.length} process(es) the tests started were still running after the last test ` +
        `(now killed): stop every process a test starts, with its children (spawnProcessGroup ` +
        `from @interlock/core/testing, then child.kill()):\n` +
        left.map(({ pid, command }) => `  ${pid}  ${command}`).join('\n'),
    );
  };
}

interface Process {
  pid: number;
  command: string;
}

/**
 * The processes that carry `mark` in their environment, other than this one and its own
 * children (vitest's workers, esbuild), once those that are on their way out have had up to
 * five seconds to go. Only Linux's /proc is read: elsewhere the check finds nothing.
 */
async function leftBehind(mark: string): Promise<Process[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const left = marked(mark);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function marked(mark: string): Process[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
  const found: Process[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    try {
      const environment = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      if (!environment.includes(mark)) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'latin1');
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) === process.pid) continue;
      if (/^State:\s+Z/m.test(status)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
      found.push({ pid, command: command.length > 300 ? `${command.slice(0, 300)}…` : command });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** SIGKILL to the process's group when it leads one, else to the process. */
function kill(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
      return;
    } catch {
      // Not a group leader, or gone.
    }
  }
}
