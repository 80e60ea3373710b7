import { beforeAll, describe, expect, it } from 'vitest';
import { createShellClassifier, type ShellClassifier } from './shell-classifier.js';

interface AskCase {
  command: string;
  rule: string;
}

let shell: ShellClassifier;
beforeAll(async () => {
  shell = await createShellClassifier();
});

const SAFE: string[] = [
  'ls -la',
  'git status',
  'git log --oneline -5',
  'cat README.md | head -20',
  'grep -rn foo src | wc -l',
  'echo ok > /dev/null',
  'ls 2>&1',
  'ls 2>&1 | head',
  'a=1 ls',
  'ls && pwd; echo done',
  'ls |& cat',
  'ls # ; rm -rf /',
  'echo "; rm -rf /"',
  'echo rm -rf /',
  'grep -r "rm -rf /" .',
  'find . -name "*.ts" -type f',
  "sed -n '1,20p' file.txt",
  "sed -e 's/x/y/g' -e 'p' file.txt",
  "awk -F, '{print $2}' data.csv",
  'rg TODO src --type ts',
  'git diff HEAD~1 -- src',
  'git -C ../other --no-pager show HEAD:README.md',
  'git branch -a',
  'git stash list',
  'jq .name package.json',
  'echo "$HOME" $1',
  'sort file | uniq -c',
  'node --version',
  'command -v git',
  'nice -n 5 ls',
  'timeout 5 ls -la',
  'env FOO=1 ls',
  'time ls',
  'cd src && ls',
  "cat <<'EOF'\nhello\nEOF\n",
  'if [ -f x ]; then cat x; fi',
  'for f in a b; do echo $f; done',
  '/bin/ls -la',
  'tar -tzf archive.tgz',
  'date +%Y-%m-%d',
  'x=1',
];

const ASK: AskCase[] = [
  // Substitutions and expansions that run code, or that hide what runs.
  { command: 'echo `id`', rule: 'shell:command-substitution' },
  { command: 'ls $(pwd)', rule: 'shell:command-substitution' },
  { command: 'echo ${x:-$(id)}', rule: 'shell:command-substitution' },
  { command: 'cat <(ls)', rule: 'shell:process-substitution' },
  { command: 'echo ${!x}', rule: 'shell:expansion' },
  { command: 'echo ${x@P}', rule: 'shell:expansion' },
  { command: 'echo $((a[$x]))', rule: 'shell:arithmetic' },
  { command: '((x = y + 1))', rule: 'shell:arithmetic' },
  { command: '[[ $x -eq 1 ]]', rule: 'shell:expansion' },
  { command: 'ls {-a,-l}', rule: 'shell:expansion' },
  { command: 'find . $ACTION', rule: 'shell:expansion' },
  { command: '$CMD -la', rule: 'shell:dynamic-program' },
  { command: '$HOME/bin/tool', rule: 'shell:dynamic-program' },
  { command: 'l? -la', rule: 'shell:dynamic-program' },
  // Redirections to files.
  // Outside the workspace (high-risk) since issue 37: see shell-writes.test.ts.
  { command: 'ls > out.txt', rule: 'shell:redirect' },
  { command: 'ls >> log.txt', rule: 'shell:redirect' },
  { command: 'ls &> log.txt', rule: 'shell:redirect' },
  { command: 'ls 2> errors.txt', rule: 'shell:redirect' },
  { command: 'wc -l < /etc/shadow', rule: 'shell:redirect' },
  // A file only known when it runs cannot be judged: it asks in every mode (issue 37).
  { command: 'ls > "$OUT"', rule: 'shell:expansion' },
  // Interpreters, eval, source, heredocs into shells.
  { command: 'ls | sh', rule: 'shell:pipe-to-interpreter' },
  { command: 'echo hi | bash', rule: 'shell:pipe-to-interpreter' },
  { command: 'cat <<EOF | sh\nls\nEOF\n', rule: 'shell:pipe-to-interpreter' },
  { command: 'sh <<EOF\nls\nEOF\n', rule: 'shell:heredoc-to-interpreter' },
  { command: 'python3 <<< "print(1)"', rule: 'shell:heredoc-to-interpreter' },
  { command: 'python3 -c "print(1)"', rule: 'shell:interpreter' },
  { command: 'node -e "process.exit(0)"', rule: 'shell:interpreter' },
  { command: 'perl -e \'system("id")\'', rule: 'shell:interpreter' },
  { command: 'bash script.sh', rule: 'shell:interpreter' },
  { command: 'bash -i', rule: 'shell:interpreter' },
  { command: 'sh -c "$CMD"', rule: 'shell:expansion' },
  { command: 'eval ls', rule: 'shell:eval' },
  { command: 'source ./env.sh', rule: 'shell:source' },
  { command: '. ./env.sh', rule: 'shell:source' },
  { command: 'f() { ls; }', rule: 'shell:function-definition' },
  // Wrappers are classified through, and some ask on their own.
  { command: 'xargs grep foo < files', rule: 'shell:redirect' },
  { command: 'find . -name x | xargs grep foo', rule: 'shell:wrapper' },
  { command: 'ssh -o ProxyCommand="sh -c id" host', rule: 'shell:wrapper' },
  { command: 'strace ls', rule: 'shell:wrapper' },
  { command: 'env', rule: 'shell:wrapper' },
  { command: 'time -o out.txt ls', rule: 'shell:hidden-effect' },
  // Dangerous flags of otherwise safe programs: the ones that run programs or write unseen files ask in yolo too (issue 24).
  { command: "git -c core.pager='sh -c id' log", rule: 'shell:hidden-effect' },
  { command: 'git --exec-path=/tmp log', rule: 'shell:hidden-effect' },
  { command: 'git log --output=/tmp/x', rule: 'shell:hidden-effect' },
  { command: 'git diff --ext-diff', rule: 'shell:hidden-effect' },
  { command: 'git fetch --upload-pack="touch /tmp/x" origin', rule: 'shell:hidden-effect' },
  { command: 'git branch new-feature', rule: 'shell:unsafe-arguments' },
  { command: 'find . -exec cat {} \\;', rule: 'shell:hidden-effect' },
  { command: 'find . -fprint /tmp/list', rule: 'shell:hidden-effect' },
  { command: "sed -i 's/a/b/' file", rule: 'shell:unsafe-arguments' },
  { command: "sed -ni 's/a/b/p' file", rule: 'shell:unsafe-arguments' },
  { command: "sed 's/a/b/w out' file", rule: 'shell:hidden-effect' },
  { command: "sed '1e id' file", rule: 'shell:hidden-effect' },
  { command: 'sed -f script.sed file', rule: 'shell:hidden-effect' },
  { command: 'awk \'BEGIN { system("id") }\'', rule: 'shell:hidden-effect' },
  { command: 'awk \'{ print | "sh" }\' file', rule: 'shell:hidden-effect' },
  { command: 'awk \'{ print > "out" }\' file', rule: 'shell:hidden-effect' },
  { command: 'rg --pre ./decode.sh secret', rule: 'shell:hidden-effect' },
  { command: 'tar -xf a.tar --to-command=sh', rule: 'shell:hidden-effect' },
  { command: 'tar -tf a.tar --checkpoint-action=exec=sh', rule: 'shell:hidden-effect' },
  { command: 'tar -tf a.tar --use-compress-program=./x', rule: 'shell:hidden-effect' },
  { command: 'sort -o out.txt in.txt', rule: 'shell:unsafe-arguments' },
  { command: 'date -s "2020-01-01"', rule: 'shell:unsafe-arguments' },
  { command: 'printf -v PATH /tmp', rule: 'shell:unsafe-arguments' },
  // Programs off the safe list, or run from elsewhere.
  { command: 'less README.md', rule: 'shell:unknown-program' },
  { command: 'vi notes.txt', rule: 'shell:unknown-program' },
  { command: 'rm file.txt', rule: 'shell:unknown-program' },
  { command: 'curl https://example.com', rule: 'shell:unknown-program' },
  { command: './ls -la', rule: 'shell:hidden-effect' },
  // Environment that changes what runs.
  { command: 'PATH=/tmp ls', rule: 'shell:dangerous-assignment' },
  { command: 'LD_PRELOAD=/tmp/x.so ls', rule: 'shell:dangerous-assignment' },
  { command: 'env GIT_PAGER="sh -c id" git log', rule: 'shell:dangerous-assignment' },
  { command: 'export PATH=/tmp', rule: 'shell:dangerous-assignment' },
  { command: 'IFS=/ ; ls', rule: 'shell:dangerous-assignment' },
  { command: 'for PATH in /tmp; do ls; done', rule: 'shell:dangerous-assignment' },
  { command: 'X=-vPATH; printf $X /tmp; ls', rule: 'shell:expansion' },
  // Characters that make the text lie, and inputs the parser cannot vouch for.
  { command: 'ls\u00a0-la', rule: 'shell:invisible-character' },
  { command: 'ls\u2028-la', rule: 'shell:invisible-character' },
  { command: 'ls\u200b -la', rule: 'shell:invisible-character' },
  { command: 'ls -la \u202e', rule: 'shell:invisible-character' },
  { command: "ls $'\\x00'", rule: 'shell:control-character' },
  { command: 'ls \u001b[2K', rule: 'shell:control-character' },
  { command: 'ls -la\r', rule: 'shell:control-character' },
  { command: "ls 'unterminated", rule: 'shell:unparsed' },
  { command: 'ls )', rule: 'shell:unparsed' },
  { command: 'if true; then ls', rule: 'shell:unparsed' },
  { command: '{rm,-rf,/}', rule: 'shell:unparsed' },
  { command: 'ls &', rule: 'shell:background' },
  { command: '   ', rule: 'shell:empty' },
];

describe('safe commands', () => {
  it.each(SAFE)('keeps %j safe', (command) => {
    const result = shell.classify(command);
    expect(result, JSON.stringify(result)).toMatchObject({ verdict: 'safe', rule: 'shell:safe', reasons: [] });
  });
});

describe('commands that cannot be proven safe', () => {
  it.each(ASK)('asks about $command', ({ command, rule }) => {
    const result = shell.classify(command);
    expect({ verdict: result.verdict, rule: result.rule }, JSON.stringify(result)).toEqual({ verdict: 'ask', rule });
    expect(result.reasons.length).toBeGreaterThan(0);
  });

  it('refuses a command too long to check, whatever it starts with (issue 13)', () => {
    for (const command of [`ls ${'a'.repeat(20_000)}`, `rm -rf ~ # ${'x'.repeat(12_000)}`]) {
      expect(shell.classify(command)).toMatchObject({ verdict: 'banned', rule: 'shell:too-long' });
    }
  });

  it('asks about a tree nested deeper than the cap', () => {
    const result = shell.classify(`echo ${'$('.repeat(60)}ls${')'.repeat(60)}`);
    expect(result.verdict).toBe('ask');
    expect(result.reasons).toContain('the command is nested deeper than 64 levels');
  });

  it('caps the reasons of a pathological command', () => {
    const result = shell.classify(`echo ${'$('.repeat(60)}ls${')'.repeat(60)}`);
    expect(result.reasons.length).toBeLessThanOrEqual(10);
  });

  it('lists the programs in source order, nested ones included', () => {
    expect(shell.classify('cat <<EOF | sh\nls\nEOF\n').programs).toEqual(['cat', 'sh', 'ls']);
    expect(shell.classify('a=1 timeout 5 ls | wc -l').programs).toEqual(['timeout', 'ls', 'wc']);
  });
});
