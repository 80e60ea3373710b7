/**
 * Paths an agent must not change without a person, whatever the mode (issue 13): Interlock's
 * own directory and store, the inside of `.git` (its config and hooks run code on the next
 * git command), shell startup files, credentials, and the settings of editors, agents and CI
 * (which run code or decide what runs). Pure string work on the path, segment by segment:
 * `~/.bashrc`, `$HOME/.bashrc`, `./.git/hooks/x` and `/home/ada/.bashrc` are all seen. The
 * callers check the path a write really reaches too (reached-path.ts): symlinks followed.
 */

/** What a protected path is, or `ordinary`. */
export type ProtectedKind = 'interlock' | 'git' | 'shell-startup' | 'credentials' | 'settings' | 'ordinary';

const SHELL_STARTUP = new Set([
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.zlogin',
  '.zlogout',
  '.cshrc',
  '.tcshrc',
  '.kshrc',
  '.mkshrc',
  '.inputrc',
  '.envrc',
  'config.fish',
]);
const CREDENTIAL_DIRECTORIES = new Set(['.ssh', '.aws', '.gnupg', '.kube', '.docker', '.azure', '.config/gcloud']);
const CREDENTIAL_FILES = new Set(['.netrc', '.npmrc', '.pypirc', '.git-credentials', '.pgpass']);
const SETTINGS_DIRECTORIES = new Set([
  '.vscode',
  '.idea',
  '.claude',
  '.cursor',
  '.gemini',
  '.codex',
  '.devcontainer',
  '.husky',
  '.circleci',
]);
const SETTINGS_FILES = new Set(['.mcp.json', '.gitlab-ci.yml', '.pre-commit-config.yaml']);

/** What `path` points at among the protected kinds. */
export function protectedKind(path: string): ProtectedKind {
  // Case-insensitive file systems (macOS, Windows) open `.GIT/hooks` as `.git/hooks`, and
  // Windows drops trailing dots and spaces (`.git.`): compare names as they would (issue 24).
  const segments = path
    .replace(/\\/g, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .map((segment) => (segment === '..' ? segment : segment.toLowerCase().replace(/[. ]+$/, '')));
  const base = segments[segments.length - 1] ?? '';
  if (segments.includes('.interlock') || /^interlock\.db(-wal|-shm|-journal)?$/.test(base)) return 'interlock';
  const gitAt = segments.indexOf('.git');
  if (gitAt >= 0 && gitAt < segments.length - 1) return 'git';
  if (base === '.git' || base === '.gitmodules') return 'git';
  if (SHELL_STARTUP.has(base)) return 'shell-startup';
  if (
    segments.some(
      (segment, index) =>
        CREDENTIAL_DIRECTORIES.has(segment) || CREDENTIAL_DIRECTORIES.has(`${segment}/${segments[index + 1] ?? ''}`),
    ) ||
    CREDENTIAL_FILES.has(base)
  )
    return 'credentials';
  if (
    segments.some((segment, index) => SETTINGS_DIRECTORIES.has(segment) && index < segments.length - 1) ||
    SETTINGS_DIRECTORIES.has(base)
  )
    return 'settings';
  if (SETTINGS_FILES.has(base)) return 'settings';
  const githubAt = segments.indexOf('.github');
  if (githubAt >= 0 && segments[githubAt + 1] === 'workflows') return 'settings';
  return 'ordinary';
}

const DESCRIPTIONS: Record<Exclude<ProtectedKind, 'ordinary'>, string> = {
  interlock: "Interlock's own directory or store",
  git: 'the inside of a git repository (its config and hooks run code)',
  'shell-startup': 'a shell startup file (it runs in every new shell)',
  credentials: 'credentials',
  settings: 'editor, agent or CI settings (they decide what runs)',
};

/** Why a write to `path` is protected, or undefined for an ordinary path. */
export function protectedWrite(path: string): { kind: Exclude<ProtectedKind, 'ordinary'>; reason: string } | undefined {
  const kind = protectedKind(path);
  return kind === 'ordinary' ? undefined : { kind, reason: `${path} is ${DESCRIPTIONS[kind]}` };
}

/**
 * Why a write to `given` is protected, for the path it really reaches (`reached`, symlinks
 * followed, issue 24), or undefined: `link/x reaches .git/hooks/x, the inside of a git repository…`.
 */
export function protectedReach(
  given: string,
  reached: string,
): { kind: Exclude<ProtectedKind, 'ordinary'>; reason: string } | undefined {
  const kind = protectedKind(reached);
  return kind === 'ordinary' ? undefined : { kind, reason: `${given} reaches ${reached}, ${DESCRIPTIONS[kind]}` };
}
