import { parseArgs } from 'node:util';
import { generateReceiptKey } from '@interlock/receipts';
import { createCliInterlock } from '../composition-root.js';
import { ExitCode } from '../exit-code.js';
import { RECEIPTS_HELP } from '../receipts-help.js';
import { parseStoreOption } from '../store-option.js';
import { UsageError } from '../usage-error.js';
import { withUsageErrors } from './with-usage-errors.js';

/** What `interlock receipts` does. */
export const RECEIPTS_SUBCOMMANDS = ['keys', 'rotate', 'retire', 'generate'] as const;

/**
 * `interlock receipts keys|rotate|retire KID|generate` (F63): the deployment's receipt
 * keys — the JWKS services check receipts against, rotation with overlap, and a new private
 * key for `INTERLOCK_RECEIPT_KEY`.
 *
 * @throws UsageError for a wrong command line.
 */
export async function receiptsCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('receipts', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: { store: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (values.help) {
    process.stdout.write(RECEIPTS_HELP);
    return ExitCode.completed;
  }
  const [subcommand, ...rest] = positionals;
  if (subcommand === 'generate') {
    if (rest.length > 0 || values.store !== undefined)
      throw new UsageError('interlock receipts generate takes no arguments and no store', 'receipts');
    const pair = await generateReceiptKey();
    process.stdout.write(`${JSON.stringify(pair.privateJwk)}\n`);
    process.stderr.write(
      `A new receipt key (${pair.kid}): give it to every process of the deployment as INTERLOCK_RECEIPT_KEY. Keep it secret.\n`,
    );
    return ExitCode.completed;
  }
  if (subcommand !== 'keys' && subcommand !== 'rotate' && subcommand !== 'retire')
    throw new UsageError(
      `interlock receipts needs ${RECEIPTS_SUBCOMMANDS.join(', ')}${subcommand === undefined ? '' : `, not ${JSON.stringify(subcommand)}`}`,
      'receipts',
    );
  const [kid, ...extra] = rest;
  if (subcommand === 'retire' ? kid === undefined || extra.length > 0 : rest.length > 0)
    throw new UsageError(
      subcommand === 'retire'
        ? 'interlock receipts retire takes the id of one key (see interlock receipts keys)'
        : `interlock receipts ${subcommand} takes no arguments, not ${rest.join(' ')}`,
      'receipts',
    );
  const store = parseStoreOption(values.store, 'receipts');
  const interlock = await createCliInterlock({ readsOnly: true, store: store.options });
  try {
    const { receipts } = interlock;
    if (subcommand === 'keys') {
      // This process's key first: one given by INTERLOCK_RECEIPT_KEY is checked and published.
      await receipts.keys.signingKey();
      process.stdout.write(`${JSON.stringify(await receipts.jwks(), null, 2)}\n`);
      return ExitCode.completed;
    }
    if (subcommand === 'rotate') {
      const { kid: made, retired } = await receipts.keys.rotate();
      const was =
        retired.length === 0 ? '' : `; retired ${retired.join(', ')} (their receipts verify until they expire)`;
      process.stdout.write(`Receipts are now signed with key ${made}${was}.\n`);
      return ExitCode.completed;
    }
    if (!(await receipts.keys.retire(kid as string))) {
      process.stderr.write(`No key ${kid ?? ''} is in use in ${store.label}: see interlock receipts keys.\n`);
      return ExitCode.failed;
    }
    process.stdout.write(`Retired key ${kid ?? ''}: its receipts verify until they expire.\n`);
    return ExitCode.completed;
  } finally {
    await interlock.close();
  }
}
