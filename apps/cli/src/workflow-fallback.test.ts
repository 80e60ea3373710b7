import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InterlockError } from '@interlock/core';
import { ThreadNotes } from './thread-notes.js';
import { withWorkflowFallback } from './workflow-fallback.js';

const notFound = (): Promise<string> =>
  Promise.reject(new InterlockError('WORKFLOW_NOT_FOUND', 'workflow "ask" is not loaded'));

describe('withWorkflowFallback', () => {
  let directory = '';
  afterEach(async () => {
    if (directory !== '') await rm(directory, { recursive: true, force: true });
  });

  /** Records the files it is asked to load; never reached when the engine finds the workflow itself. */
  function loader(): { loaded: string[]; loadWorkflow: (path: string) => Promise<unknown> } {
    const loaded: string[] = [];
    return {
      loaded,
      loadWorkflow: (path) => (loaded.push(path), Promise.reject(new Error('stop: the test only records the path'))),
    };
  }

  it('relies on the engine when it finds the workflow', async () => {
    const engine = loader();
    expect(
      await withWorkflowFallback(engine, new ThreadNotes(undefined), 't', () => Promise.resolve('resumed'), notFound),
    ).toBe('resumed');
    expect(engine.loaded).toEqual([]);
  });

  it('loads the noted workflow file and retries when the engine throws WORKFLOW_NOT_FOUND', async () => {
    directory = await mkdtemp(join(tmpdir(), 'interlock-fallback-'));
    const notes = new ThreadNotes(directory);
    await notes.remember('t', {
      workflowPath: '/flows/ask.toml',
      workspaceRoot: directory,
      mode: 'default',
      model: 'scripted',
    });
    const loaded: string[] = [];
    const engine = { loadWorkflow: (path: string) => (loaded.push(path), Promise.resolve(undefined)) };
    expect(await withWorkflowFallback(engine, notes, 't', notFound, () => Promise.resolve('retried'))).toBe('retried');
    expect(loaded).toEqual(['/flows/ask.toml']);
  });

  it('says where it looked when there is no note either, and passes other errors through', async () => {
    const engine = loader();
    await expect(withWorkflowFallback(engine, new ThreadNotes(undefined), 't', notFound, notFound)).rejects.toThrow(
      'the CLI has no note of the workflow file of thread t either',
    );
    const busy = () => Promise.reject(new InterlockError('THREAD_BUSY', 'busy'));
    await expect(withWorkflowFallback(engine, new ThreadNotes(undefined), 't', busy, notFound)).rejects.toThrow('busy');
  });
});
