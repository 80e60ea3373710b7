// Run with `node --test scripts/*.test.mjs` (plain Node: the root vitest config covers packages/,
// apps/ and examples/ only).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkCommitMessage, SCOPES } from './check-commit-message.mjs';

const SCRIPT = fileURLToPath(new URL('./check-commit-message.mjs', import.meta.url));

describe('checkCommitMessage', () => {
  it('accepts a scope, an area and a body after a blank line', () => {
    assert.deepEqual(checkCommitMessage('core: resume a thread from its stored turn\n\nWhy: issue 15.\n'), []);
    assert.deepEqual(checkCommitMessage('core/policy: classify `rm -rf .` as banned\n'), []);
  });

  it('accepts every listed scope', () => {
    for (const scope of SCOPES) assert.deepEqual(checkCommitMessage(`${scope}: do the thing`), [], scope);
  });

  it('refuses a subject longer than 72 characters', () => {
    const subject = `docs: ${'x'.repeat(67)}`;
    assert.equal(subject.length, 73);
    assert.match(checkCommitMessage(subject).join('\n'), /73 characters; at most 72/);
    assert.deepEqual(checkCommitMessage(subject.slice(0, 72)), []);
  });

  it('refuses a subject without a scope, or with one not on the list', () => {
    assert.match(checkCommitMessage('Fix the thing').join('\n'), /not "<scope>: <summary>"/);
    assert.match(checkCommitMessage('engine: fix the thing').join('\n'), /"engine" is not a scope/);
    assert.match(checkCommitMessage('Core: fix the thing').join('\n'), /not "<scope>: <summary>"/);
  });

  it('refuses a full stop at the end of the subject and a body that starts on the second line', () => {
    assert.match(checkCommitMessage('core: fix the thing.').join('\n'), /full stop/);
    assert.match(checkCommitMessage('core: fix the thing\nbecause').join('\n'), /second line must be blank/);
  });

  it("ignores git's comments and the diff under the scissors line, and leaves merges alone", () => {
    const message =
      '# Please enter the commit message\n\ncli: print the rule that decided\n\n# ------------------------ >8 ------------------------\ndiff --git a b\n';
    assert.deepEqual(checkCommitMessage(message), []);
    assert.deepEqual(
      checkCommitMessage("Merge branch 'main' of somewhere into a-branch-with-a-long-name-that-goes-on-and-on"),
      [],
    );
    assert.deepEqual(checkCommitMessage('# only comments\n'), ['the message is empty']);
  });
});

describe('scripts/check-commit-message.mjs', () => {
  it('exits 0 for a good message file and 1, naming the problem, for a bad one', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'commit-message-'));
    try {
      const good = path.join(directory, 'good');
      const bad = path.join(directory, 'bad');
      writeFileSync(good, 'bench: check RESULTS_DIR end to end\n');
      writeFileSync(bad, 'Fixed stuff.\n');
      assert.equal(spawnSync(process.execPath, [SCRIPT, good]).status, 0);
      const refused = spawnSync(process.execPath, [SCRIPT, bad], { encoding: 'utf8' });
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /not "<scope>: <summary>"/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
