import { createHash, randomBytes } from 'node:crypto';

/*
 * Which worker process fetches a new job (issue 27). graphile-worker 0.16 wakes one idle
 * worker in every listening process at each `jobs:insert` (even for a job due hours from
 * now), each of its workers also looks every pollInterval, and a worker that finishes a job
 * looks again at once: with four processes of eight workers, 13 fetches in 14 found nothing.
 *
 * Instead, a worker process fetches only when it has a reason to:
 * - a due job was routed to it. The unit of work that adds jobs announces the due ones on
 *   `jobs:insert` (`{ count: 0, interlock: { queue, ticket, due } }`: count 0, so another
 *   listener ignores it); every process that serves the job's task computes, by rendezvous
 *   hashing of the ticket over the live processes of its group (those serving the same
 *   tasks, seen in pg_stat_activity by their connections' application_name), whether it is
 *   the one; only that one wakes a worker. graphile-worker's own announcements are dropped.
 * - it polls: at most one fetch per `pollMs` per process, not one per worker;
 * - a fetch found a job nobody announced (one that came due, one added elsewhere): there may
 *   be more, so the worker looks again and wakes one more, until a fetch finds nothing.
 * Any other fetch is answered "no job" without asking the database. A job whose
 * announcement went to a process that died, or was missed, is found by a poll.
 */

/** How long a view of the live processes is used before it is read again (ms). */
const PEERS_MS = 2_000;

/** How many announced job keys a process remembers (to tell a backlog from a job announced to another). */
const KEYS = 1_000;

/** Why a fetch may go to the database. */
export type FetchReason = 'announced' | 'discovered' | 'poll';

/**
 * What is announced on `jobs:insert` for the processes that route: due jobs (by a unit of
 * work, see the AddCommitFunction migration), or a process that joins or leaves its group.
 */
type Announcement =
  | { queue: string; ticket: number; due: Record<string, number>; keys: readonly string[] }
  | { queue: string; joined: string }
  | { queue: string; left: string };

const short = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** The fetch gate and nudge router of one worker process on one job queue. */
export class JobNudges {
  /** This process's connections' application_name: `iw:<queue>:<group>:<process>`, under 63 characters. */
  readonly applicationName: string;
  /** The application_name prefix of the processes of its group. */
  readonly groupPattern: string;
  private announced = 0;
  private discovered = 0;
  private lastPoll = Number.NEGATIVE_INFINITY;
  private peers: readonly string[];
  private peersAt = Number.NEGATIVE_INFINITY;
  private refreshing = false;
  /** Processes that said they left, and when: their connections may linger a little. */
  private readonly gone = new Map<string, number>();
  /** The keys of the due jobs announced lately, to whichever process. */
  private readonly keys = new Set<string>();

  constructor(
    private readonly queue: string,
    private readonly tasks: ReadonlySet<string>,
    private readonly pollMs: number,
    /** Reads the application_names of the live connections of the group. */
    private readonly readPeers: (pattern: string) => Promise<string[]>,
    private readonly now: () => number = Date.now,
  ) {
    const group = short([...tasks].sort().join('\n'));
    this.groupPattern = `iw:${short(queue)}:${group}:`;
    this.applicationName = `${this.groupPattern}${randomBytes(4).toString('hex')}`;
    this.peers = [this.applicationName];
  }

  /** Whether a job fetch may go to the database now, and why; undefined: answer "no job". */
  admit(): FetchReason | undefined {
    if (this.announced > 0) {
      this.announced -= 1;
      return 'announced';
    }
    if (this.discovered > 0) {
      this.discovered -= 1;
      return 'discovered';
    }
    if (this.now() - this.lastPoll >= this.pollMs) {
      this.lastPoll = this.now();
      return 'poll';
    }
    return undefined;
  }

  /**
   * What a fetch admitted for `reason` found: the key of the job it took, null for a job
   * without one, or undefined for none. Returns how many idle workers to wake.
   */
  fetched(reason: FetchReason, found: string | null | undefined): number {
    if (found === undefined || reason === 'announced') return 0;
    // A job announced (to this process or another) that a poll took first: no backlog.
    if (found !== null && this.keys.delete(found)) return 0;
    // A job nobody announced: look again after it, and have one more worker look now.
    this.discovered += 2;
    return 1;
  }

  /** The payload that tells the other processes of the queue this one joined (`NOTIFY "jobs:insert"`). */
  get joining(): string {
    return JSON.stringify({ count: 0, interlock: { queue: this.queue, joined: this.applicationName } });
  }

  /** The payload that tells them it leaves. */
  get leaving(): string {
    return JSON.stringify({ count: 0, interlock: { queue: this.queue, left: this.applicationName } });
  }

  /**
   * A notification on `jobs:insert`: how many idle workers to wake (0: drop it). Only the
   * announcement of a unit of work counts, and only for the due jobs routed to this process;
   * a process of the group that joins or leaves is taken into the view or out of it.
   */
  notified(payload: string | undefined): number {
    const announcement = parseAnnouncement(payload);
    if (announcement?.queue !== this.queue) return 0;
    if ('joined' in announcement || 'left' in announcement) {
      const name = 'joined' in announcement ? announcement.joined : announcement.left;
      if (!name.startsWith(this.groupPattern) || name === this.applicationName) return 0;
      const others = this.peers.filter((peer) => peer !== name);
      if ('left' in announcement) this.gone.set(name, this.now());
      this.peers = ('joined' in announcement ? [...others, name] : others).sort();
      return 0;
    }
    // A process that died leaves no word: the view is read again now and then.
    if (this.now() - this.peersAt >= PEERS_MS) this.refreshPeers();
    for (const key of announcement.keys) this.keys.add(key);
    for (const key of this.keys) {
      if (this.keys.size <= KEYS) break;
      this.keys.delete(key);
    }
    let mine = 0;
    let index = 0;
    for (const [task, count] of Object.entries(announcement.due).sort(([a], [b]) => a.localeCompare(b))) {
      for (let job = 0; job < count; job += 1, index += 1) {
        if (this.tasks.has(task) && this.chosen(`${announcement.ticket}:${index}`) === this.applicationName) mine += 1;
      }
    }
    this.announced += mine;
    return mine;
  }

  /** Reads the live processes of the group now (once at start, then as announcements come). */
  async readPeersNow(): Promise<void> {
    const names = await this.readPeers(this.groupPattern);
    for (const [name, at] of this.gone) if (this.now() - at > 30 * PEERS_MS) this.gone.delete(name);
    this.peers = [...new Set([...names, this.applicationName])].filter((name) => !this.gone.has(name)).sort();
    this.peersAt = this.now();
  }

  private refreshPeers(): void {
    if (this.refreshing) return;
    this.refreshing = true;
    // A failed read keeps the last view; the next announcement tries again.
    this.readPeersNow()
      .catch(() => undefined)
      .finally(() => (this.refreshing = false));
  }

  /** The process a job goes to: the highest hash of the job's key with the process's name (rendezvous hashing). */
  private chosen(key: string): string | undefined {
    let best: { peer: string; score: string } | undefined;
    for (const peer of this.peers) {
      const score = createHash('sha256').update(`${key}\n${peer}`).digest('hex');
      if (best === undefined || score > best.score) best = { peer, score };
    }
    return best?.peer;
  }
}

function parseAnnouncement(payload: string | undefined): Announcement | undefined {
  if (payload === undefined) return undefined;
  let interlock: Record<string, unknown> | undefined;
  try {
    interlock = (JSON.parse(payload) as { interlock?: Record<string, unknown> }).interlock;
  } catch {
    return undefined;
  }
  if (typeof interlock?.['queue'] !== 'string') return undefined;
  const queue = interlock['queue'];
  const { joined, left, ticket, due } = interlock;
  if (typeof joined === 'string') return { queue, joined };
  if (typeof left === 'string') return { queue, left };
  const keys = Array.isArray(interlock['keys']) ? interlock['keys'].filter((key) => typeof key === 'string') : [];
  if (typeof ticket === 'number' && typeof due === 'object' && due !== null)
    return { queue, ticket, due: due as Record<string, number>, keys };
  return undefined;
}
