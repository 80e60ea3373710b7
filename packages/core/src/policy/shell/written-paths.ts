import type { ShellWord } from './shell-word.js';

/**
 * Which words of a program's run name files it creates, changes, moves or removes (issue
 * 37): every such path is judged like a file tool's path (protected places, the workspace).
 * Options that take a value are skipped with it, so `install -m 755 x /usr/local/bin/x`
 * writes `/usr/local/bin/x`, never `755`.
 */

/** How the words of one writing program are read. */
interface WriterSpec {
  /** Options that take the next word as their value (or `--long=value`, `-xVALUE`). */
  readonly valued?: readonly string[];
  /** Which operands it writes. */
  readonly writes: (operands: readonly ShellWord[], options: ReadonlyMap<string, ShellWord[]>) => ShellWord[];
}

const all = (operands: readonly ShellWord[]): ShellWord[] => [...operands];
/** Every operand but the first (a mode, an owner or a script), unless `--reference` gave it. */
const afterFirst =
  (...reference: string[]) =>
  (operands: readonly ShellWord[], options: ReadonlyMap<string, ShellWord[]>): ShellWord[] =>
    reference.some((option) => options.has(option)) ? [...operands] : operands.slice(1);
/** The destination: `-t DIR` / `--target-directory DIR`, else the last operand (the only one, for `ln`). */
const destination = (operands: readonly ShellWord[], options: ReadonlyMap<string, ShellWord[]>): ShellWord[] => {
  const targets = [...(options.get('-t') ?? []), ...(options.get('--target-directory') ?? [])];
  if (targets.length > 0) return targets;
  const last = operands.at(-1);
  return last === undefined ? [] : [last];
};

const WRITERS: ReadonlyMap<string, WriterSpec> = new Map<string, WriterSpec>([
  // Sources are removed from where they were, the destination is written: every operand.
  ['mv', { valued: ['-t', '--target-directory', '-S', '--suffix'], writes: all }],
  ['cp', { valued: ['-t', '--target-directory', '-S', '--suffix'], writes: destination }],
  [
    'install',
    {
      valued: ['-t', '--target-directory', '-S', '--suffix', '-m', '--mode', '-o', '--owner', '-g', '--group'],
      writes: (operands, options) =>
        options.has('-d') || options.has('--directory') ? [...operands] : destination(operands, options),
    },
  ],
  ['ln', { valued: ['-t', '--target-directory', '-S', '--suffix'], writes: destination }],
  ['link', { writes: (operands) => operands.slice(1) }],
  [
    'rsync',
    {
      valued: ['-e', '--rsh', '-f', '--filter', '--exclude', '--include', '--exclude-from', '--include-from'],
      writes: (operands, options) =>
        options.has('--remove-source-files') ? [...operands] : destination(operands, new Map()),
    },
  ],
  ['touch', { valued: ['-d', '--date', '-t', '-r', '--reference'], writes: all }],
  ['truncate', { valued: ['-s', '--size', '-r', '--reference'], writes: all }],
  ['rm', { writes: all }],
  ['rmdir', { writes: all }],
  ['unlink', { writes: all }],
  ['shred', { valued: ['-n', '--iterations', '-s', '--size', '--random-source'], writes: all }],
  ['mkdir', { valued: ['-m', '--mode', '--context'], writes: all }],
  ['mkfifo', { valued: ['-m', '--mode', '--context'], writes: all }],
  ['mknod', { valued: ['-m', '--mode', '--context'], writes: (operands) => operands.slice(0, 1) }],
  ['chmod', { valued: ['--reference'], writes: afterFirst('--reference') }],
  ['chown', { valued: ['--reference', '--from'], writes: afterFirst('--reference') }],
  ['chgrp', { valued: ['--reference'], writes: afterFirst('--reference') }],
  ['chattr', { valued: ['-v', '-p'], writes: afterFirst() }],
  ['setfacl', { valued: ['-m', '--modify', '-x', '--remove', '-M', '-X', '--set', '--set-file'], writes: all }],
  ['tee', { valued: ['--output-error'], writes: all }],
  // split INPUT PREFIX: the files it writes start with the prefix (`x` in the working directory without one).
  [
    'split',
    {
      valued: ['-a', '--suffix-length', '-b', '--bytes', '-C', '--line-bytes', '-l', '--lines', '-n', '--number'],
      writes: (operands) => {
        const prefix = operands[1];
        return prefix === undefined ? [literal('x')] : [prefix];
      },
    },
  ],
  [
    'csplit',
    {
      valued: ['-b', '--suffix-format', '-f', '--prefix', '-n', '--digits'],
      writes: (_operands, options) => options.get('-f') ?? options.get('--prefix') ?? [literal('xx')],
    },
  ],
  ['patch', { valued: ['-o', '--output', '-i', '--input', '-p', '-d', '--directory', '-B', '-r'], writes: all }],
  // uniq INPUT OUTPUT writes its second operand.
  ['uniq', { valued: ['-f', '--skip-fields', '-s', '--skip-chars', '-w', '--check-chars'], writes: (o) => o.slice(1) }],
  // In-place compressors replace each file with its compressed (or expanded) form.
  ...['gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'zstd', 'unzstd', 'lz4', 'lzma', 'unlzma'].map(
    (name): [string, WriterSpec] => [
      name,
      { valued: ['-S', '--suffix', '-o', '-T', '--threads'], writes: inPlaceUnlessStdout },
    ],
  ),
  ['zip', { valued: ['-b', '-n', '-t', '-tt', '-x', '-i'], writes: (operands) => operands.slice(0, 1) }],
]);

/** Programs that write the file named by one of these options, whatever else they do. */
const OUTPUT_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['curl', ['-o', '--output']],
  ['wget', ['-O', '--output-document', '-P', '--directory-prefix', '-o', '--output-file', '-a', '--append-output']],
  ['sort', ['-o', '--output']],
  ['patch', ['-o', '--output']],
  ['zstd', ['-o']],
  ['openssl', ['-out']],
  ['shuf', ['-o', '--output']],
]);

function literal(text: string): ShellWord {
  return { text, exact: true, plainExpansionsOnly: true, braceExpansion: false, glob: false, fetchesRemote: false };
}

function inPlaceUnlessStdout(operands: readonly ShellWord[], options: ReadonlyMap<string, ShellWord[]>): ShellWord[] {
  const toStdout = ['-c', '--stdout', '--to-stdout', '-l', '--list', '-t', '--test'].some((flag) => options.has(flag));
  return toStdout ? [] : [...operands];
}

/**
 * Splits a run's words into options (with their values) and operands. A short-option
 * cluster (`-rf`) counts each letter; a valued short option takes the rest of its cluster
 * or the next word.
 */
function readWords(
  args: readonly ShellWord[],
  valued: readonly string[],
): { operands: ShellWord[]; options: Map<string, ShellWord[]> } {
  const operands: ShellWord[] = [];
  const options = new Map<string, ShellWord[]>();
  const add = (name: string, value?: ShellWord) =>
    options.set(name, [...(options.get(name) ?? []), ...(value ? [value] : [])]);
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index] as ShellWord;
    const text = word.text;
    if (text === '--') {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (!text.startsWith('-') || text === '-' || !word.exact) {
      operands.push(word);
      continue;
    }
    if (text.startsWith('--') || valued.includes(text)) {
      const equals = text.indexOf('=');
      const name = equals < 0 ? text : text.slice(0, equals);
      if (equals >= 0) add(name, literalOf(word, text.slice(equals + 1)));
      else if (valued.includes(name)) {
        const value = args[index + 1];
        add(name, value);
        index += 1;
      } else add(name);
      continue;
    }
    // A cluster of short options: `-rf`, `-m755`, `-s0`.
    for (let at = 1; at < text.length; at += 1) {
      const name = `-${text[at] ?? ''}`;
      if (!valued.includes(name)) {
        add(name);
        continue;
      }
      const rest = text.slice(at + 1);
      if (rest !== '') add(name, literalOf(word, rest));
      else {
        add(name, args[index + 1]);
        index += 1;
      }
      break;
    }
  }
  return { operands, options };
}

function literalOf(word: ShellWord, text: string): ShellWord {
  return { ...word, text };
}

/**
 * The words of a run of `name` that name files it writes: operands of the programs above,
 * the values of output options (`curl -o`, `sort -o`), `sed -i`'s files and `dd of=`.
 * A word whose value is only known when it runs is returned too (`exact: false`).
 */
export function writtenWords(name: string, args: readonly ShellWord[]): ShellWord[] {
  const written: ShellWord[] = [];
  const spec = WRITERS.get(name);
  if (spec) {
    const { operands, options } = readWords(args, spec.valued ?? []);
    written.push(...spec.writes(operands, options));
  }
  if (name === 'sed') written.push(...sedInPlace(args));
  if (name === 'tar') written.push(...tarArchive(args));
  if (name === 'dd')
    written.push(...args.filter((arg) => arg.text.startsWith('of=')).map((arg) => literalOf(arg, arg.text.slice(3))));
  const outputs = OUTPUT_OPTIONS.get(name);
  if (outputs) {
    const { options } = readWords(args, outputs);
    for (const option of outputs) written.push(...(options.get(option) ?? []));
  }
  return written.filter((word) => word.text !== '' && word.text !== '-');
}

/** The archive `tar` creates or changes (`-c`, `-r`, `-u`, `-A`, also as `czf` without a dash): its `-f` value. */
function tarArchive(args: readonly ShellWord[]): ShellWord[] {
  const [first] = args;
  // The old form: the first word is a cluster of letters without a dash (`tar czf out.tgz src`).
  const words =
    first !== undefined && first.exact && /^[a-zA-Z]+$/.test(first.text)
      ? [literalOf(first, `-${first.text}`), ...args.slice(1)]
      : args;
  const { options } = readWords(words, [
    '-f',
    '--file',
    '-C',
    '--directory',
    '-T',
    '--files-from',
    '-X',
    '--exclude-from',
  ]);
  const writes = [
    '-c',
    '--create',
    '-r',
    '--append',
    '-u',
    '--update',
    '-A',
    '--catenate',
    '--concatenate',
    '--delete',
  ];
  if (!writes.some((option) => options.has(option))) return [];
  return [...(options.get('-f') ?? []), ...(options.get('--file') ?? [])];
}

/** `sed -i`'s files: every operand after the script (after all of them when `-e`/`-f` gave it). */
function sedInPlace(args: readonly ShellWord[]): ShellWord[] {
  const { operands, options } = readWords(args, ['-e', '--expression', '-f', '--file', '-l', '--line-length']);
  const inPlace = [...options.keys()].some(
    (option) => option === '-i' || option.startsWith('--in-place') || /^-[a-zA-Z]*i/.test(option),
  );
  // `-i.bak`: readWords sees -i then -., -b, …; any `-i…` cluster is in place.
  const clustered = args.some((arg) => /^-[a-zA-Z]*i/.test(arg.text) && !arg.text.startsWith('--'));
  if (!inPlace && !clustered) return [];
  const scripted = options.has('-e') || options.has('--expression') || options.has('-f') || options.has('--file');
  return scripted ? operands : operands.slice(1);
}
