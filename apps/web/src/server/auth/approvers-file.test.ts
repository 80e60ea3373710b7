import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findApprover, hashToken, mayApprove } from './approvers.js';
import { loadApprovers } from './approvers-file.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'interlock-approvers-'));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

describe('loadApprovers', () => {
  it('creates the file at first start with one approver, keeps only the hash of the token it returns once', async () => {
    const path = join(directory, 'nested', 'web-approvers.json');
    const first = await loadApprovers(path);
    expect(first.newToken).toMatch(/^[\w-]{43}$/);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(first.newToken);
    expect(text).toContain(hashToken(first.newToken!));
    expect((await stat(path)).mode & 0o077).toBe(0);
    expect(findApprover(first.approvers, first.newToken!)?.name).toBe('admin');

    const again = await loadApprovers(path);
    expect(again.newToken).toBeUndefined();
    expect(findApprover(again.approvers, first.newToken!)?.name).toBe('admin');
  });

  it('gives admin a new token on rotate, and the old one stops working', async () => {
    const path = join(directory, 'web-approvers.json');
    const first = await loadApprovers(path);
    const rotated = await loadApprovers(path, { rotate: true });
    expect(findApprover(rotated.approvers, first.newToken!)).toBeUndefined();
    expect(findApprover(rotated.approvers, rotated.newToken!)?.name).toBe('admin');
  });

  it('reads configured approvers (plain tokens are hashed) and per-workflow lists', async () => {
    const path = join(directory, 'web-approvers.json');
    await writeFile(
      path,
      JSON.stringify({
        approvers: [{ name: 'alice', token: 'alice-token-of-some-length' }],
        workflows: { deploy: ['alice'] },
      }),
    );
    const config = await loadApprovers(path);
    expect(findApprover(config.approvers, 'alice-token-of-some-length')?.name).toBe('alice');
    const alice = { name: 'alice', groups: [] };
    const bob = { name: 'bob', groups: [] };
    expect(mayApprove(config.workflowApprovers, 'deploy', alice)).toBe(true);
    expect(mayApprove(config.workflowApprovers, 'deploy', bob)).toBe(false);
    expect(mayApprove(config.workflowApprovers, 'anything-else', bob)).toBe(true);
  });

  it('reads groups of machine approvers and lists per risk level (F51)', async () => {
    const path = join(directory, 'web-approvers.json');
    await writeFile(
      path,
      JSON.stringify({
        approvers: [{ name: 'ci', token: 'ci-token-of-some-length', groups: ['deployers'] }],
        workflows: { deploy: { HIGH: ['group:release-managers'], default: ['group:deployers'] } },
      }),
    );
    const config = await loadApprovers(path);
    expect(config.approvers[0]?.groups).toEqual(['deployers']);
    const ci = { name: 'ci', groups: config.approvers[0]?.groups ?? [] };
    expect(mayApprove(config.workflowApprovers, 'deploy', ci, 'MEDIUM')).toBe(true);
    expect(mayApprove(config.workflowApprovers, 'deploy', ci, 'HIGH')).toBe(false);
    await writeFile(path, JSON.stringify({ approvers: [], workflows: { deploy: { CRITICAL: ['ci'] } } }));
    await expect(loadApprovers(path)).rejects.toThrow('workflows.deploy must be a list of approver names');
  });

  it('refuses a file it cannot trust, saying what is wrong', async () => {
    const path = join(directory, 'web-approvers.json');
    await writeFile(path, JSON.stringify({ approvers: [{ name: 'alice', token: 'short' }] }));
    await expect(loadApprovers(path)).rejects.toThrow(
      'approvers[0] needs "tokenSha256" (64 hex digits) or a "token" of at least 16 characters',
    );
    await writeFile(path, '{ not json');
    await expect(loadApprovers(path)).rejects.toThrow('is not valid JSON');
  });
});
