import { describe, expect, it } from 'vitest';
import { checkAwkArguments } from './awk-safety.js';
import { classifyPath, type PathKind } from './critical-paths.js';
import { checkGitArguments } from './git-safety.js';
import { checkSedArguments } from './sed-safety.js';

describe('sed arguments', () => {
  it.each([
    [['-n', '1,20p', 'f']],
    [['s/hello world/bye/g', 'f']],
    [['-E', '-e', 's/(a|b)/x/2', '-e', '/^#/d']],
    [['/start/,/end/{s/a/b/;p}']],
    [['y/abc/xyz/']],
    [['--expression=$!N;P;D']],
    [['a\\ appended; w not-a-command']],
  ])('accepts the read-only %j', (args) => {
    expect(checkSedArguments(args)).toBeUndefined();
  });

  it.each([
    [['-i', 's/a/b/', 'f']],
    [['-i.bak', 's/a/b/', 'f']],
    [['--in-place', 's/a/b/', 'f']],
    [['-f', 'script.sed']],
    [['s/a/b/w /tmp/x']],
    [['s/a/b/ge']],
    [['5q;w /tmp/x']],
    [['1e id']],
    [['/x/W out']],
    [['s/unterminated']],
  ])('refuses %j', (args) => {
    expect(checkSedArguments(args)).toBeDefined();
  });
});

describe('awk arguments', () => {
  it.each([
    [['{print $1}']],
    [['-F', ',', '-v', 'n=2', '{print $n}']],
    [['--sandbox', 'END { print NR }']],
    [['{ print "a > b | c" }']],
  ])('accepts %j', (args) => {
    expect(checkAwkArguments(args)).toBeUndefined();
  });

  it.each([
    [['BEGIN{system("id")}']],
    [['{print > "f"}']],
    [['{"date" | getline d}']],
    [['-f', 'prog.awk']],
    [['@load "x"; {}']],
    [[]],
  ])('refuses %j', (args) => {
    expect(checkAwkArguments(args)).toBeDefined();
  });
});

describe('git arguments', () => {
  it.each([
    [['status']],
    [['log', '--oneline', '-5']],
    [['-C', 'x', 'diff']],
    [['tag', '-l', 'v*']],
    [['remote', 'show', 'origin']],
  ])('accepts %j', (args) => {
    expect(checkGitArguments(args)).toBeUndefined();
  });

  it.each([
    [['-c', 'core.pager=id', 'log']],
    [['push']],
    [['constructor']],
    [['grep', '-O', 'x']],
    [['stash']],
    [['branch', '-m', 'a', 'b']],
  ])('refuses %j', (args) => {
    expect(checkGitArguments(args)).toBeDefined();
  });
});

describe('path classification', () => {
  const environment = { cwds: ['/srv/app'], homeDirectory: '/home/ada' };
  it.each<[string, PathKind]>([
    ['/', 'root'],
    ['//', 'root'],
    ['/*', 'root'],
    ['/tmp/..', 'root'],
    ['/etc', 'system'],
    ['/usr/*', 'system'],
    ['~', 'home'],
    ['$HOME/', 'home'],
    ['/home/ada/*', 'home'],
    ['~/..', 'system'],
    ['../..', 'root'],
    ['/dev/sda1', 'device'],
    ['/dev/null', 'ordinary'],
    ['/tmp/build', 'ordinary'],
    ['dist', 'ordinary'],
  ])('classifies %s as %s', (path, kind) => {
    expect(classifyPath(path, environment)).toBe(kind);
  });
});
