import { mkdtempSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellClassifier, type ShellClassifier } from './shell-classifier.js';

// Issue 37 (F24, F25): every path a shell command writes is judged like a file tool's path.
// Outside the workspace or into a protected place asks in every mode (high-risk, which yolo
// does not run); moving or removing a home, `/` or a system directory is banned like `rm -rf ~`.

const HOME = '/home/ada';
const root = mkdtempSync(join(tmpdir(), 'interlock-shell-writes-'));
const WORKSPACE = join(root, 'project');
mkdirSync(join(WORKSPACE, 'src'), { recursive: true });
symlinkSync('/etc', join(WORKSPACE, 'etc-link'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let shell: ShellClassifier;
beforeAll(async () => {
  shell = await createShellClassifier();
});

const classify = (command: string) => shell.classify(command, { cwd: WORKSPACE, homeDirectory: HOME });

const OUTSIDE: string[] = [
  // The cases of the issue.
  'echo x >> /etc/passwd',
  'truncate -s0 /etc/passwd',
  'truncate -s 0 /etc/passwd',
  'install -m 755 x /usr/local/bin/x',
  'sed -i -e s/x/y/ f /tmp/other.txt',
  "sed -i 's/x/y/' /tmp/other.txt",
  'sed -i.bak s/x/y/ /tmp/other.txt',
  // Every writing program, every way of naming the place.
  'cp key /tmp/key',
  'cp -t /tmp key notes',
  'cp --target-directory=/tmp key',
  'mv notes.md /tmp/',
  'mv /tmp/x notes.md',
  'ln -s notes.md /usr/local/bin/notes',
  'ln -sf /etc/passwd ~/x',
  'install -d /opt/tool',
  'tee /tmp/log < notes.md',
  'tee -a /var/log/x',
  'dd if=notes.md of=/tmp/x',
  'split -l 1 notes.md /tmp/part',
  'csplit -f /tmp/part notes.md 3',
  'touch /tmp/x',
  'mkdir -p /opt/x',
  'rm /tmp/x',
  'rm -f ../other/file',
  'rmdir /tmp/empty',
  'unlink /tmp/x',
  'chmod 600 /tmp/x',
  'chmod 777 ~/bin',
  'chown ada /srv/x',
  'chgrp staff /srv/x',
  'curl -o /tmp/x https://example.com',
  'curl https://example.com --output=/tmp/x',
  'wget -O /tmp/x https://example.com',
  'sort -o /tmp/sorted notes.md',
  'uniq notes.md /tmp/uniq',
  'gzip /tmp/log',
  'tar -czf /tmp/backup.tgz src',
  'tar czf /tmp/backup.tgz src',
  'rsync -a src/ /srv/www/',
  'echo x > ~/notes',
  'echo x > "$HOME/notes"',
  'echo x > /etc/$NAME',
  'cd .. && touch x',
  'cd /tmp && echo x > log',
  'echo x > etc-link/motd',
  'echo x > ../project-other/x',
  'find . -name x -exec cp {} /tmp \\;',
  'xargs cp -t /tmp < list',
];

const PROTECTED: string[] = [
  'split -l 1 key ~/.ssh/authorized_keys',
  'cp key ~/.ssh/authorized_keys',
  'echo x >> .git/hooks/pre-commit',
  'sed -i s/x/y/ .bashrc',
];

const BANNED: [string, string][] = [
  ['mv ~ /tmp/gone', 'shell:banned:mv-home'],
  ['mv $HOME /tmp/gone', 'shell:banned:mv-home'],
  ['mv /home/ada /tmp/gone', 'shell:banned:mv-home'],
  ['mv -t /tmp ~', 'shell:banned:mv-home'],
  ['mv /etc /tmp/etc', 'shell:banned:mv-root'],
  ['mv /usr/* /tmp/', 'shell:banned:mv-root'],
  ['mv / /tmp/root', 'shell:banned:mv-root'],
  ['rsync -a --delete empty/ ~/', 'shell:banned:rm-home'],
  ['rsync -a --delete-after empty/ /usr', 'shell:banned:rm-root'],
  ['rm -rf ~', 'shell:banned:rm-home'],
];

const INSIDE: string[] = [
  'cp README.md notes.md',
  'cp /etc/hosts hosts.txt',
  'mv notes.md src/notes.md',
  'install -m 644 x src/x',
  'truncate -s 0 notes.md',
  'sed -i s/x/y/ notes.md',
  'echo x > notes.md',
  'echo x > ./src/../notes.md',
  'echo x > ' + WORKSPACE + '/notes.md',
  'tee notes.md',
  'ls > /dev/null 2>&1',
  'echo x > /dev/stderr',
  'chmod +x src/run.sh',
  'tar -tzf /tmp/archive.tgz',
  'sort -o sorted.txt notes.md',
  'cd src && touch x',
  'dd if=/dev/zero of=blank bs=1 count=1',
];

describe('the shell writes outside the workspace only with a person (F24, F25, issue 37)', () => {
  it.each(OUTSIDE)('%s is high-risk: outside the workspace', (command) => {
    expect(classify(command)).toMatchObject({ verdict: 'high-risk', rule: 'shell:high-risk:outside-workspace' });
  });

  it.each(PROTECTED)('%s is high-risk: a protected place', (command) => {
    expect(classify(command).verdict).toBe('high-risk');
    expect(classify(command).reasons.join('; ')).toMatch(/credentials|git repository|shell startup/);
  });

  it.each(BANNED)('%s is banned', (command, rule) => {
    expect(classify(command)).toMatchObject({ verdict: 'banned', rule });
  });

  it.each(INSIDE)('%s stays inside: never high-risk', (command) => {
    expect(classify(command).verdict).not.toMatch(/high-risk|banned/);
  });

  it('sees the write through a wrapper: sudo, find -exec, xargs', () => {
    expect(classify('sudo cp x /usr/bin/x').reasons).toContain(
      `cp writes /usr/bin/x, outside the workspace ${WORKSPACE}`,
    );
  });

  it('asks in every mode about a write to a path only known when it runs', () => {
    for (const command of ['echo x > "$OUT"', 'cp x "$DEST"', 'tee "$LOG"']) {
      expect(classify(command), command).toMatchObject({ verdict: 'ask', analysed: false });
    }
  });

  it('without a workspace, judges every absolute or home path outside', () => {
    expect(shell.classify('echo x >> /etc/passwd')).toMatchObject({ rule: 'shell:high-risk:outside-workspace' });
    expect(shell.classify('cp x ~/x').verdict).toBe('high-risk');
    expect(shell.classify('cp x y').verdict).toBe('ask');
  });

  it('names the place and the workspace in its reason', () => {
    expect(classify('install -m 755 x /usr/local/bin/x').reasons).toContain(
      `install writes /usr/local/bin/x, outside the workspace ${WORKSPACE}`,
    );
  });
});
