import { dirname, resolve } from 'node:path';
import { DEFAULT_SQLITE_PATH, resolveFromConfig, storeFromProjectConfig, type StoreOptions } from '@interlock/core';
import { projectConfig } from './project-config-option.js';
import { UsageError } from './usage-error.js';

/** The environment variable read when `--store` is not given (keeps a URL's password out of the command line). */
export const STORE_ENVIRONMENT_VARIABLE = 'INTERLOCK_STORE';

/** The accepted forms of `--store`, for help and errors. */
export const STORE_FORMS = `sqlite:<path> (default sqlite:${DEFAULT_SQLITE_PATH}), postgres://user:password@host:port/database[?schema=name] (or postgresql://), or memory`;

const SCHEMA_PARAMETER = 'schema';

/** A `--store` read and checked: what to give `createInterlock`, and how to name it to people. */
export interface StoreChoice {
  /** The store, for `createInterlock({ store })`. */
  options: StoreOptions;
  /** The store as given, with any password masked, e.g. `postgres://ada:***@db/interlock`. */
  label: string;
  /** True unless it is `memory`: threads outlive the process. */
  durable: boolean;
  /** Where the CLI keeps its notes about threads (see thread-notes.ts); undefined for `memory`. */
  notesDirectory: string | undefined;
  /** True when neither `--store` nor INTERLOCK_STORE chose it. */
  isDefault: boolean;
  /**
   * The option to repeat in advice, e.g. ` --store 'sqlite:/tmp/x.db'`: empty when the
   * default or INTERLOCK_STORE chose the store (the same environment chooses it again).
   */
  flag: string;
}

/**
 * Reads `--store` (or, without it, `INTERLOCK_STORE`): `sqlite:<path>`, `postgres://…` or
 * `postgresql://…` (an optional `?schema=name` keeps the tables in that schema), or
 * `memory`. Without either, the SQLite file `.interlock/interlock.db` in the current
 * directory. Relative SQLite paths are resolved against the current directory.
 *
 * @example
 * parseStoreOption('sqlite:/tmp/flows.db', 'pending').options // { type: 'sqlite', path: '/tmp/flows.db' }
 * @throws UsageError naming the accepted forms, with any password in the spec masked.
 */
export function parseStoreOption(
  value: string | undefined,
  command: string,
  environment: NodeJS.ProcessEnv = process.env,
): StoreChoice {
  const fromEnvironment = environment[STORE_ENVIRONMENT_VARIABLE];
  const given = value ?? (fromEnvironment === undefined || fromEnvironment === '' ? undefined : fromEnvironment);
  const project = given === undefined ? projectStore(command) : undefined;
  if (project !== undefined) return project;
  const spec = (given ?? `sqlite:${DEFAULT_SQLITE_PATH}`).trim();
  const choice = readSpec(
    spec,
    value === undefined && given !== undefined ? STORE_ENVIRONMENT_VARIABLE : '--store',
    command,
  );
  return { ...choice, isDefault: given === undefined, flag: value === undefined ? '' : ` --store '${choice.label}'` };
}

/** The project file's `[store]`, read as core reads it, when neither `--store` nor INTERLOCK_STORE chose one. */
function projectStore(command: string): StoreChoice | undefined {
  const project = projectConfig();
  if (project === undefined) return undefined;
  let options: StoreOptions | undefined;
  try {
    options = storeFromProjectConfig(project);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
  if (options === undefined) return undefined;
  switch (options.type) {
    case 'postgres': {
      const url = new URL(options.url);
      if (options.schema !== undefined) url.searchParams.set(SCHEMA_PARAMETER, options.schema);
      return { ...readSpec(url.toString(), project.path, command), isDefault: false, flag: '' };
    }
    case 'sqlite':
      return {
        ...readSpec(`sqlite:${options.path ?? resolveFromConfig(project, DEFAULT_SQLITE_PATH)}`, project.path, command),
        isDefault: false,
        flag: '',
      };
    default:
      return { ...readSpec('memory', project.path, command), isDefault: false, flag: '' };
  }
}

function readSpec(spec: string, source: string, command: string): Omit<StoreChoice, 'isDefault' | 'flag'> {
  if (spec === 'memory')
    return { options: { type: 'memory' }, label: 'memory', durable: false, notesDirectory: undefined };
  if (spec === 'sqlite' || spec.startsWith('sqlite:')) {
    const path = spec === 'sqlite' ? DEFAULT_SQLITE_PATH : spec.slice('sqlite:'.length);
    if (path === '') throw invalid(spec, source, command, 'the SQLite path is empty');
    const file = resolve(path);
    return {
      options: { type: 'sqlite', path: file },
      label: `sqlite:${path}`,
      durable: true,
      notesDirectory: dirname(file),
    };
  }
  if (/^postgres(ql)?:\/\//i.test(spec)) return readPostgres(spec, source, command);
  throw invalid(spec, source, command);
}

function readPostgres(spec: string, source: string, command: string): Omit<StoreChoice, 'isDefault' | 'flag'> {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw invalid(spec, source, command, 'the URL does not parse');
  }
  if (url.hostname === '' && !url.searchParams.has('host'))
    throw invalid(spec, source, command, 'the URL names no host');
  const schema = url.searchParams.get(SCHEMA_PARAMETER) ?? undefined;
  url.searchParams.delete(SCHEMA_PARAMETER);
  if (schema === '') throw invalid(spec, source, command, 'the schema is empty');
  return {
    options: { type: 'postgres', url: url.toString(), ...(schema === undefined ? {} : { schema }) },
    label: maskPassword(spec),
    durable: true,
    // PostgreSQL has no directory of its own: the notes stay beside the default SQLite file.
    notesDirectory: dirname(resolve(DEFAULT_SQLITE_PATH)),
  };
}

function invalid(spec: string, source: string, command: string, reason?: string): UsageError {
  const why = reason === undefined ? '' : ` (${reason})`;
  return new UsageError(
    `${source} ${JSON.stringify(maskPassword(spec))} is not a store${why}: use ${STORE_FORMS}`,
    command,
  );
}

/**
 * The text with the password of any URL in it replaced by `***`, for messages: a store's
 * password is never printed.
 *
 * @example
 * maskPassword('postgres://ada:s3cret@db/interlock') // 'postgres://ada:***@db/interlock'
 */
export function maskPassword(text: string): string {
  return text.replace(/(\/\/[^/:@\s]*):[^@\s]*@/g, '$1:***@');
}
