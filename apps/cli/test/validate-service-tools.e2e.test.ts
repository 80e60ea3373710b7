import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './built-cli.js';
import { cliIn } from './cross-process.js';

/*
 * A workflow whose tools live in the team's service (issue 28): `interlock validate` checks
 * it when told the names the service registers, and says how when it is not.
 */

beforeAll(() => assertBuilt());

const REFUND = `id = "refund"
name = "Refund"
version = "1"
[[variables]]
name = "output"
scope = "thread"
[[nodes]]
id = "start"
type = "START"
[[nodes]]
id = "agent"
type = "LLM"
config = { systemPrompt = "Refund the order.", tools = ["refund", "read_file"], outputVariable = "output" }
[[nodes]]
id = "end"
type = "END"
[[edges]]
from = "start"
to = "agent"
[[edges]]
from = "agent"
to = "end"
`;

describe('interlock validate of a workflow whose tools the service holds (issue 28)', () => {
  it('refuses an unknown tool and says to name it with --tool; with --tool it is valid, and a typo still is not', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-validate-'));
    await writeFile(join(directory, 'refund.toml'), REFUND);
    const plain = await cliIn(directory, ['validate', 'refund.toml']);
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toContain('no tool "refund" is registered');
    expect(plain.stderr).toContain('name it with --tool NAME');
    const named = await cliIn(directory, ['validate', 'refund.toml', '--tool', 'refund']);
    expect(named.exitCode, named.stderr).toBe(0);
    expect(named.stdout).toContain('valid: refund.toml (workflow "refund" version 1');
    const typo = await cliIn(directory, ['validate', 'refund.toml', '--tool', 'refnud']);
    expect(typo.exitCode).toBe(1);
  });
});
