import { describe, expect, it } from 'vitest';
import { placementOf, resolvePlacement } from './postgres-placement.js';

describe('the placement of a PostgreSQL store (issue 34, F38)', () => {
  it('puts the job queue beside the schema the options name, without asking the database', async () => {
    const asked: string[] = [];
    const ask = async () => {
      asked.push('current_schema()');
      return 'public';
    };
    expect(await resolvePlacement('team', ask)).toEqual({ schema: 'team', jobsSchema: 'team_jobs' });
    expect(asked).toEqual([]);
    expect(await resolvePlacement(undefined, ask)).toEqual({ schema: 'public', jobsSchema: 'public_jobs' });
    expect(asked).toEqual(['current_schema()']);
  });

  it("refuses a name whose job queue's would not fit PostgreSQL's 63 characters, or that is not a plain identifier", async () => {
    const ask = async () => 'public';
    expect((await resolvePlacement('s'.repeat(58), ask)).jobsSchema).toHaveLength(63);
    for (const named of ['s'.repeat(59), 'bad"; DROP TABLE x; --', 'has-dash', '1st', ''])
      await expect(resolvePlacement(named, ask)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(resolvePlacement(undefined, async () => 'Alice.Smith')).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining(`the database's current schema "Alice.Smith"`),
    });
    for (const none of [null, undefined])
      await expect(resolvePlacement(undefined, async () => none)).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('search_path names no schema that exists'),
      });
  });

  it('is read from a store that keeps one, and from nothing else', () => {
    expect(placementOf({ placement: { schema: 'app', jobsSchema: 'app_jobs' } })).toEqual({
      schema: 'app',
      jobsSchema: 'app_jobs',
    });
    expect(placementOf({})).toBeUndefined();
    expect(placementOf({ placement: { schema: 'app' } })).toBeUndefined();
  });
});
