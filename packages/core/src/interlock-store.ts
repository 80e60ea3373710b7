import { InterlockError } from './errors/interlock-error.js';
import type { ICheckpointStore } from './persistence/checkpoint-store.js';
import { openStore as openResolvedStore, type StoreOptions } from './persistence/open-store.js';

/** The URL parameter that names the PostgreSQL schema of Interlock's tables (`postgres://…/db?schema=team`). */
export const SCHEMA_PARAMETER = 'schema';

/**
 * A store's options read one way everywhere (issue 28): a PostgreSQL URL's `?schema=` names
 * the schema, as `interlock-web --store`, the CLI's `--store` and `createWorker({ store: { url } })`
 * all read it — the parameter is taken out of the URL given to the driver, which would ignore
 * it. A schema in the URL and another in `schema` contradict each other and are refused.
 *
 * @throws InterlockError INVALID_OPTIONS for a URL that does not parse, or two different schemas.
 */
export function resolveStoreOptions(options: StoreOptions): StoreOptions {
  if (options.type !== 'postgres') return options;
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new InterlockError(
      'INVALID_OPTIONS',
      'the PostgreSQL store URL does not parse: give postgres://user:password@host:port/database[?schema=name]',
    );
  }
  const named = url.searchParams.getAll(SCHEMA_PARAMETER);
  if (named.length === 0) return options;
  const [fromUrl] = named;
  if (named.length > 1 || fromUrl === undefined || fromUrl === '')
    throw new InterlockError(
      'INVALID_OPTIONS',
      'the PostgreSQL store URL names its schema more than once, or an empty one: give ?schema=name once',
    );
  if (options.schema !== undefined && options.schema !== fromUrl)
    throw new InterlockError(
      'INVALID_OPTIONS',
      `the PostgreSQL store URL says ?schema=${fromUrl} but the options say schema "${options.schema}": name the schema once`,
    );
  url.searchParams.delete(SCHEMA_PARAMETER);
  return { ...options, url: url.toString(), schema: fromUrl };
}

/**
 * Opens the store `createInterlock({ store })` would open. For an app that reads the store
 * itself too (the web inbox): open it here, then pass `{ type: 'custom', store }`. A
 * PostgreSQL URL's `?schema=` names the schema ({@link resolveStoreOptions}).
 */
export function openStore(options: StoreOptions): Promise<ICheckpointStore> {
  return openResolvedStore(resolveStoreOptions(options));
}
