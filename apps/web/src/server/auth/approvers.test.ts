import { describe, expect, it } from 'vitest';
import { mayApprove, type WorkflowApprovers } from './approvers.js';

/* Who may answer which level of which workflow (F51): people and groups, per risk level. */
const lists: WorkflowApprovers = {
  'release-agent': ['alice', 'group:sre'],
  deploy: { HIGH: ['group:release-managers'], MEDIUM: ['group:sre', 'dave'], default: ['group:on-call'] },
  audit: { HIGH: ['erin'] },
};
const alice = { name: 'alice', groups: [] };
const sam = { name: 'sam', groups: ['sre'] };
const rita = { name: 'rita', groups: ['release-managers'] };
const otto = { name: 'otto', groups: ['on-call'] };

describe('approver lists per workflow, risk level and group (F51)', () => {
  it('lets a person or a member of a listed group answer every level of a workflow with one list', () => {
    expect(mayApprove(lists, 'release-agent', alice, 'HIGH')).toBe(true);
    expect(mayApprove(lists, 'release-agent', sam, 'LOW')).toBe(true);
    expect(mayApprove(lists, 'release-agent', rita, 'LOW')).toBe(false);
  });

  it('answers each level by its own list, and levels not named by the default list', () => {
    expect(mayApprove(lists, 'deploy', rita, 'HIGH')).toBe(true);
    expect(mayApprove(lists, 'deploy', sam, 'HIGH')).toBe(false);
    expect(mayApprove(lists, 'deploy', sam, 'MEDIUM')).toBe(true);
    expect(mayApprove(lists, 'deploy', { name: 'dave', groups: [] }, 'MEDIUM')).toBe(true);
    expect(mayApprove(lists, 'deploy', otto, 'LOW')).toBe(true);
    expect(mayApprove(lists, 'deploy', otto, 'QUESTION')).toBe(true);
    expect(mayApprove(lists, 'deploy', otto, 'HIGH')).toBe(false);
  });

  it('lets nobody answer a level with no list and no default (fail closed)', () => {
    expect(mayApprove(lists, 'audit', { name: 'erin', groups: [] }, 'LOW')).toBe(false);
    expect(mayApprove(lists, 'audit', { name: 'erin', groups: [] }, 'HIGH')).toBe(true);
  });

  it('shows a workflow to whoever is on any of its lists, and an unlisted workflow to everyone', () => {
    expect(mayApprove(lists, 'deploy', rita)).toBe(true);
    expect(mayApprove(lists, 'deploy', otto)).toBe(true);
    expect(mayApprove(lists, 'deploy', alice)).toBe(false);
    expect(mayApprove(lists, 'anything-else', alice, 'HIGH')).toBe(true);
  });

  it('never takes a person named like a group for its members, nor a group for a person', () => {
    expect(mayApprove(lists, 'release-agent', { name: 'group:sre', groups: [] }, 'LOW')).toBe(false);
    expect(mayApprove(lists, 'release-agent', { name: 'bob', groups: ['alice'] }, 'LOW')).toBe(false);
  });
});
