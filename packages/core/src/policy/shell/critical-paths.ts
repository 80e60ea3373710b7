/**
 * What a path argument points at, for the rules that ban destroying a whole system,
 * a home directory or a disk. Pure string work on the path: nothing touches the file system.
 */

/** `root`: `/` or everything in it; `home`: a home directory or everything in it; `system`: a top-level system directory; `device`: a block device. */
export type PathKind = 'root' | 'home' | 'system' | 'device' | 'ordinary';

/** Where relative paths start from, and which directory `~` is. */
export interface PathEnvironment {
  /** Directories the command may run in (the caller's cwd, then any `cd` seen). `~` means home. */
  readonly cwds: readonly string[];
  /** The user's home directory, when the caller knows it. */
  readonly homeDirectory?: string | undefined;
}

const SYSTEM_DIRECTORIES = new Set([
  'bin',
  'boot',
  'dev',
  'etc',
  'home',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'opt',
  'proc',
  'root',
  'run',
  'sbin',
  'srv',
  'sys',
  'usr',
  'var',
  'Users',
  'System',
  'Library',
  'Applications',
  'private',
  'Volumes',
]);

const BLOCK_DEVICE_PREFIXES = [
  'sd',
  'hd',
  'vd',
  'xvd',
  'nvme',
  'mmcblk',
  'disk',
  'rdisk',
  'md',
  'dm-',
  'mapper/',
  'nbd',
  'sr',
  'loop',
  'zd',
];

const HOME_PREFIXES = ['$HOME', '${HOME}'];

/** True for a path under /dev that names a block device (`/dev/sda`, `/dev/nvme0n1`, `/dev/disk2`). */
export function isBlockDevice(path: string): boolean {
  const normalized = path.replace(/\/+/g, '/');
  if (!normalized.startsWith('/dev/')) return false;
  const name = normalized.slice('/dev/'.length);
  return BLOCK_DEVICE_PREFIXES.some((prefix) => name.startsWith(prefix)) || name.startsWith('disk/by-');
}

function isGlobSegment(segment: string): boolean {
  return /[*?[]/.test(segment);
}

/** Splits a path into its base (`/` or `~`) and its segments, or undefined when it is relative. */
function anchor(path: string, homeDirectory: string | undefined): { base: '/' | '~'; rest: string } | undefined {
  if (homeDirectory && (path === homeDirectory || path.startsWith(`${homeDirectory}/`))) {
    return { base: '~', rest: path.slice(homeDirectory.length) };
  }
  if (path.startsWith('/')) return { base: '/', rest: path };
  if (path.startsWith('~')) {
    const slash = path.indexOf('/');
    return { base: '~', rest: slash < 0 ? '' : path.slice(slash) };
  }
  const home = HOME_PREFIXES.find((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  return home === undefined ? undefined : { base: '~', rest: path.slice(home.length) };
}

/** Resolves `.` and `..`; `escaped` is true when `..` climbs above the base. */
function resolveSegments(rest: string): { segments: string[]; escaped: boolean } {
  const segments: string[] = [];
  let escaped = false;
  for (const segment of rest.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) escaped = true;
      else segments.pop();
    } else {
      segments.push(segment);
    }
  }
  return { segments, escaped };
}

function kindOfAnchored(base: '/' | '~', rest: string): PathKind {
  const { segments, escaped } = resolveSegments(rest);
  const [first, second] = segments;
  if (base === '~') {
    if (escaped) return 'system';
    return segments.length === 0 || (segments.length === 1 && first !== undefined && isGlobSegment(first))
      ? 'home'
      : 'ordinary';
  }
  if (segments.length === 0) return 'root';
  if (segments.length === 1 && first !== undefined && isGlobSegment(first)) return 'root';
  if (first !== undefined && SYSTEM_DIRECTORIES.has(first)) {
    if (segments.length === 1) return 'system';
    if (segments.length === 2 && second !== undefined && isGlobSegment(second)) return 'system';
  }
  return 'ordinary';
}

const SEVERITY: Readonly<Record<PathKind, number>> = { ordinary: 0, system: 1, home: 2, device: 3, root: 4 };

/** The more destructive of two kinds (for `reduce`). */
export function strictestPathKind(left: PathKind, right: PathKind): PathKind {
  return SEVERITY[right] > SEVERITY[left] ? right : left;
}

/** Classifies a path argument; a relative path is resolved against every candidate working directory. */
export function classifyPath(path: string, environment: PathEnvironment): PathKind {
  if (isBlockDevice(path)) return 'device';
  const anchored = anchor(path, environment.homeDirectory);
  if (anchored) return kindOfAnchored(anchored.base, anchored.rest);
  let worst: PathKind = 'ordinary';
  for (const cwd of environment.cwds) {
    const base = anchor(cwd, environment.homeDirectory);
    if (!base) continue;
    const kind = kindOfAnchored(base.base, `${base.rest}/${path}`);
    if (SEVERITY[kind] > SEVERITY[worst]) worst = kind;
  }
  return worst;
}
