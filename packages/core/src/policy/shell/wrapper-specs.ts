/** How a program that runs another program takes its options. */
export interface WrapperSpec {
  /** Options that take a value (`-n 5`, `-n5`, `--adjustment=5`). */
  readonly valueOptions?: readonly string[];
  /** Options without a value. */
  readonly flags?: readonly string[];
  /** Short options whose value, if any, is attached (`xargs -i{}`). */
  readonly optionalValueOptions?: readonly string[];
  /** Options whose value is a shell script (`su -c '…'`). */
  readonly scriptOptions?: readonly string[];
  /** Options that make the wrapper itself do more than run the command (`time -o file`). */
  readonly unsafeOptions?: readonly string[];
  /** Options that only look the command up (`command -v`). */
  readonly lookupOptions?: readonly string[];
  /** Operands before the command (`timeout 5 …`, `chroot /dir …`, `ssh host …`). */
  readonly leadingOperands?: number;
  /** Accepts `NAME=value` before the command (`env`, `sudo`). */
  readonly assignments?: boolean;
  /** Accepts `-5` (`nice -5`). */
  readonly numericOptions?: boolean;
  /** Its operands are not a command (`su user`): only `scriptOptions` run anything. */
  readonly noCommand?: boolean;
  /** Joins the command words with spaces and runs them through a shell (`ssh host …`, `watch …`). */
  readonly commandIsScript?: boolean;
  /** Appends words read from standard input to the command (`xargs`). */
  readonly stdinArguments?: boolean;
  /** The command run when none is given (`xargs` runs `echo`). */
  readonly defaultCommand?: string;
  /** Running a command through it adds nothing to ask about (`nice`, `timeout`, `env`). */
  readonly transparent: boolean;
  /** Options are unknown: every suffix of the arguments is tried as the command. */
  readonly opaque?: boolean;
}

/**
 * Programs that run a command given in their arguments. The wrapped command is what counts:
 * it is classified as if it ran alone, and a wrapper that is not `transparent` asks on top.
 * `sudo`, `doas`, `su` and `pkexec` are high-risk through their own rule.
 */
export const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  [
    'env',
    {
      valueOptions: ['-u', '--unset', '-C', '--chdir'],
      flags: ['-i', '--ignore-environment', '-0', '--null', '-v', '--debug', '-'],
      scriptOptions: ['-S', '--split-string'],
      assignments: true,
      transparent: true,
    },
  ],
  [
    'sudo',
    {
      valueOptions: [
        '-u',
        '--user',
        '-g',
        '--group',
        '-C',
        '--close-from',
        '-D',
        '--chdir',
        '-h',
        '--host',
        '-p',
        '--prompt',
        '-r',
        '--role',
        '-t',
        '--type',
        '-U',
        '--other-user',
        '-T',
        '--command-timeout',
      ],
      flags: [
        '-A',
        '--askpass',
        '-b',
        '--background',
        '-E',
        '--preserve-env',
        '-H',
        '--set-home',
        '-i',
        '--login',
        '-k',
        '--reset-timestamp',
        '-K',
        '--remove-timestamp',
        '-n',
        '--non-interactive',
        '-P',
        '--preserve-groups',
        '-S',
        '--stdin',
        '-s',
        '--shell',
        '-B',
        '--bell',
        '-N',
        '--no-update',
        '-e',
        '--edit',
        '-l',
        '--list',
        '-v',
        '--validate',
        '-V',
        '--version',
      ],
      assignments: true,
      transparent: false,
    },
  ],
  ['doas', { valueOptions: ['-u', '-C'], flags: ['-n', '-s', '-L'], transparent: false }],
  [
    'su',
    {
      valueOptions: ['-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment'],
      flags: ['-', '-l', '--login', '-m', '-p', '--preserve-environment', '-f', '-P', '--pty'],
      scriptOptions: ['-c', '--command', '--session-command'],
      noCommand: true,
      transparent: false,
    },
  ],
  [
    'runuser',
    {
      valueOptions: [
        '-u',
        '--user',
        '-s',
        '--shell',
        '-g',
        '--group',
        '-G',
        '--supp-group',
        '-w',
        '--whitelist-environment',
      ],
      flags: ['-', '-l', '--login', '-m', '-p', '--preserve-environment', '-f', '-P', '--pty'],
      scriptOptions: ['-c', '--command', '--session-command'],
      transparent: false,
    },
  ],
  ['pkexec', { valueOptions: ['--user'], flags: ['--disable-internal-agent', '--keep-cwd'], transparent: false }],
  ['nice', { valueOptions: ['-n', '--adjustment'], numericOptions: true, transparent: true }],
  ['nohup', { transparent: true }],
  ['builtin', { transparent: true }],
  ['busybox', { transparent: true }],
  ['toybox', { transparent: true }],
  [
    'timeout',
    {
      valueOptions: ['-s', '--signal', '-k', '--kill-after'],
      flags: ['--foreground', '--preserve-status', '-v', '--verbose'],
      leadingOperands: 1,
      transparent: true,
    },
  ],
  [
    'time',
    {
      valueOptions: ['-f', '--format', '-o', '--output'],
      flags: ['-p', '-a', '--append', '-v', '--verbose', '-q', '--quiet', '--portability'],
      unsafeOptions: ['-o', '--output'],
      transparent: true,
    },
  ],
  ['stdbuf', { valueOptions: ['-i', '-o', '-e', '--input', '--output', '--error'], transparent: true }],
  [
    'ionice',
    {
      valueOptions: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'],
      flags: ['-t', '--ignore'],
      transparent: true,
    },
  ],
  ['command', { flags: ['-p'], lookupOptions: ['-v', '-V'], transparent: true }],
  [
    'chroot',
    { valueOptions: ['--userspec', '--groups'], flags: ['--skip-chdir'], leadingOperands: 1, transparent: false },
  ],
  ['setsid', { flags: ['-c', '--ctty', '-f', '--fork', '-w', '--wait'], transparent: false }],
  ['exec', { valueOptions: ['-a'], flags: ['-c', '-l'], transparent: false }],
  [
    'xargs',
    {
      valueOptions: [
        '-I',
        '-a',
        '--arg-file',
        '-d',
        '--delimiter',
        '-E',
        '-L',
        '--max-lines',
        '-n',
        '--max-args',
        '-P',
        '--max-procs',
        '-s',
        '--max-chars',
        '--process-slot-var',
        '--replace',
        '--eof',
      ],
      flags: [
        '-0',
        '--null',
        '-o',
        '--open-tty',
        '-p',
        '--interactive',
        '-r',
        '--no-run-if-empty',
        '-t',
        '--verbose',
        '-x',
        '--exit',
        '--show-limits',
      ],
      optionalValueOptions: ['-i', '-e', '-l'],
      stdinArguments: true,
      defaultCommand: 'echo',
      transparent: false,
    },
  ],
  [
    'flock',
    {
      valueOptions: ['-w', '--timeout', '-E', '--conflict-exit-code'],
      flags: [
        '-s',
        '--shared',
        '-x',
        '-e',
        '--exclusive',
        '-u',
        '--unlock',
        '-n',
        '--nb',
        '--nonblock',
        '-o',
        '--close',
        '-F',
        '--no-fork',
        '--verbose',
      ],
      scriptOptions: ['-c', '--command'],
      leadingOperands: 1,
      transparent: false,
    },
  ],
  [
    'watch',
    {
      valueOptions: ['-n', '--interval', '-q', '--equexit'],
      flags: [
        '-t',
        '--no-title',
        '-b',
        '--beep',
        '-e',
        '--errexit',
        '-g',
        '--chgexit',
        '-c',
        '--color',
        '-x',
        '--exec',
        '-p',
        '--precise',
        '-w',
        '--no-wrap',
        '-d',
        '--differences',
      ],
      commandIsScript: true,
      transparent: false,
    },
  ],
  [
    'ssh',
    {
      valueOptions: [
        '-b',
        '-c',
        '-D',
        '-E',
        '-e',
        '-F',
        '-I',
        '-i',
        '-J',
        '-L',
        '-l',
        '-m',
        '-O',
        '-o',
        '-p',
        '-Q',
        '-R',
        '-S',
        '-W',
        '-w',
        '-B',
      ],
      flags: [
        '-4',
        '-6',
        '-A',
        '-a',
        '-C',
        '-f',
        '-G',
        '-g',
        '-K',
        '-k',
        '-M',
        '-N',
        '-n',
        '-q',
        '-s',
        '-T',
        '-t',
        '-V',
        '-v',
        '-X',
        '-x',
        '-Y',
        '-y',
      ],
      leadingOperands: 1,
      commandIsScript: true,
      transparent: false,
    },
  ],
  ...[
    'coproc',
    'strace',
    'ltrace',
    'valgrind',
    'gdb',
    'taskset',
    'chrt',
    'numactl',
    'caffeinate',
    'nsenter',
    'unshare',
    'firejail',
    'systemd-run',
    'fakeroot',
    'proot',
    'torsocks',
    'proxychains',
    'proxychains4',
    'dbus-run-session',
    'unbuffer',
    'sg',
    'npx',
    'script',
    'entr',
    'parallel',
    'docker',
    'podman',
    'kubectl',
  ].map((name): [string, WrapperSpec] => [name, { opaque: true, transparent: false }]),
]);
