#!/usr/bin/env node
// Checks a commit message against CONTRIBUTING.md ("Commit messages"): a subject of at
// most 72 characters, `<scope>: <summary>` or `<scope>/<area>: <summary>` with a scope
// from the list below, no full stop at the end, and a blank line before the body.
//
//   node scripts/check-commit-message.mjs <file>     (a commit-msg hook: the file git gives it)
//   git log -1 --format=%B | node scripts/check-commit-message.mjs -
//
// As a hook: printf '#!/bin/sh\nexec node scripts/check-commit-message.mjs "$1"\n' > .git/hooks/commit-msg
//            chmod +x .git/hooks/commit-msg
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The scopes, one per part of the repository (see CONTRIBUTING.md). */
export const SCOPES = [
  'sdk-types',
  'core',
  'chat',
  'chat-slack',
  'chat-feishu',
  'chat-whatsapp',
  'ai-sdk',
  'openai-agents',
  'langgraph',
  'claude-agent-sdk',
  'telemetry',
  'receipts',
  'cli',
  'web',
  'examples',
  'bench',
  'docs',
  'test',
  'build',
  'ci',
  'deps',
  'release',
];

export const MAX_SUBJECT_LENGTH = 72;

const SUBJECT = /^(?<scope>[a-z][a-z-]*)(?:\/(?<area>[a-z0-9][a-z0-9-]*))?: (?<summary>\S.*)$/;

/** Subjects git writes itself: they are left alone. */
const GENERATED = /^(Merge |Revert "|fixup! |squash! |amend! )/;

/**
 * The problems of a commit message, or none. Lines starting with `#` (git's comments) and
 * everything from git's scissors line on are ignored.
 *
 * @param {string} message the whole message, as git stores it or hands it to a commit-msg hook
 * @returns {string[]}
 */
export function checkCommitMessage(message) {
  const lines = [];
  for (const line of message.replace(/\r\n/g, '\n').split('\n')) {
    if (line.startsWith('# ------------------------ >8 ------------------------')) break;
    if (!line.startsWith('#')) lines.push(line);
  }
  while (lines.length > 0 && lines[0].trim() === '') lines.shift();
  const subject = lines[0] ?? '';
  if (subject.trim() === '') return ['the message is empty'];
  if (GENERATED.test(subject)) return [];

  const problems = [];
  if (subject.length > MAX_SUBJECT_LENGTH) {
    problems.push(`the subject has ${subject.length} characters; at most ${MAX_SUBJECT_LENGTH}`);
  }
  const match = SUBJECT.exec(subject);
  if (!match?.groups) {
    problems.push(
      `the subject is not "<scope>: <summary>" (or "<scope>/<area>: <summary>"): ${JSON.stringify(subject)}`,
    );
  } else {
    const { scope, summary } = match.groups;
    if (!SCOPES.includes(scope)) problems.push(`"${scope}" is not a scope; use one of ${SCOPES.join(', ')}`);
    if (/[.]$/.test(summary)) problems.push('the subject ends with a full stop');
  }
  if (lines.length > 1 && lines[1].trim() !== '')
    problems.push('the second line must be blank: the body starts after an empty line');
  return problems;
}

function main(argv) {
  const [file] = argv;
  if (file === undefined || file === '--help' || file === '-h') {
    process.stderr.write('usage: node scripts/check-commit-message.mjs <message file | ->\n');
    return file === undefined ? 2 : 0;
  }
  const message = readFileSync(file === '-' ? 0 : file, 'utf8');
  const problems = checkCommitMessage(message);
  if (problems.length === 0) return 0;
  process.stderr.write(`commit message: ${problems.join('\n  ')}\nSee CONTRIBUTING.md, "Commit messages".\n`);
  return 1;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
