import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maskPassword, parseStoreOption } from './store-option.js';
import { UsageError } from './usage-error.js';

describe('parseStoreOption', () => {
  it('defaults to the SQLite file .interlock/interlock.db in the current directory', () => {
    const choice = parseStoreOption(undefined, 'run', {});
    expect(choice).toMatchObject({
      options: { type: 'sqlite', path: resolve('.interlock/interlock.db') },
      label: 'sqlite:.interlock/interlock.db',
      durable: true,
      isDefault: true,
      flag: '',
      notesDirectory: resolve('.interlock'),
    });
  });

  it('reads sqlite:<path>, memory, and PostgreSQL URLs with an optional schema', () => {
    expect(parseStoreOption('sqlite:/tmp/flows.db', 'run', {})).toMatchObject({
      options: { type: 'sqlite', path: '/tmp/flows.db' },
      flag: " --store 'sqlite:/tmp/flows.db'",
    });
    expect(parseStoreOption('memory', 'run', {})).toMatchObject({
      options: { type: 'memory' },
      durable: false,
      notesDirectory: undefined,
    });
    expect(
      parseStoreOption('postgresql://ada:s3cret@db:5432/flows?schema=team_a&sslmode=disable', 'run', {}),
    ).toMatchObject({
      options: { type: 'postgres', url: 'postgresql://ada:s3cret@db:5432/flows?sslmode=disable', schema: 'team_a' },
      label: 'postgresql://ada:***@db:5432/flows?schema=team_a&sslmode=disable',
    });
    expect(parseStoreOption('postgres://db/flows', 'run', {}).options).toEqual({
      type: 'postgres',
      url: 'postgres://db/flows',
    });
  });

  it('takes INTERLOCK_STORE when --store is not given, and does not repeat it in advice', () => {
    const choice = parseStoreOption(undefined, 'pending', { INTERLOCK_STORE: 'postgres://ada:s3cret@db/flows' });
    expect(choice).toMatchObject({ options: { type: 'postgres' }, isDefault: false, flag: '' });
    expect(parseStoreOption('memory', 'pending', { INTERLOCK_STORE: 'postgres://db/flows' }).options).toEqual({
      type: 'memory',
    });
  });

  it('refuses anything else as a usage error naming the accepted forms, with the password masked', () => {
    for (const spec of [
      'mysql://ada:s3cret@db/flows',
      'sqlite:',
      'postgres://ada:s3cret@/',
      'flows.db',
      'postgres://db/flows?schema=',
    ]) {
      let thrown: unknown;
      try {
        parseStoreOption(spec, 'respond', {});
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      const usage = thrown instanceof UsageError ? thrown : undefined;
      expect(usage?.message).toContain('is not a store');
      expect(usage?.message).toContain('use sqlite:<path> (default sqlite:.interlock/interlock.db), postgres://');
      expect(usage?.message).not.toContain('s3cret');
      expect(usage?.helpCommand).toBe('respond');
    }
    expect(() => parseStoreOption(undefined, 'run', { INTERLOCK_STORE: 'redis://x' })).toThrow(
      'INTERLOCK_STORE "redis://x" is not a store',
    );
  });
});

describe('maskPassword', () => {
  it('hides the password of every URL in a text and keeps the rest', () => {
    expect(maskPassword('cannot open postgres://ada:s3cret@db:5432/flows: refused')).toBe(
      'cannot open postgres://ada:***@db:5432/flows: refused',
    );
    expect(maskPassword('postgres://:p%40ss@db/x')).toBe('postgres://:***@db/x');
    expect(maskPassword('postgres://ada@db/x and sqlite:.interlock/interlock.db')).toBe(
      'postgres://ada@db/x and sqlite:.interlock/interlock.db',
    );
  });
});
