import { STORE_HELP } from './thread-commands-help.js';

/** `interlock receipts --help`. */
export const RECEIPTS_HELP = `Usage: interlock receipts keys [--store SPEC]
       interlock receipts rotate [--store SPEC]
       interlock receipts retire KID [--store SPEC]
       interlock receipts generate

Approval receipts (F63): each call that runs on an approval gets a receipt,
signed with the deployment's key, that the service the tool calls checks with
@interlock/receipts (verifyReceipt) against the public keys printed here.

keys      prints the JWKS services check receipts against: every key in use,
          and retired ones until their last receipt expired (interlock-web
          serves the same at /.well-known/jwks.json). Makes the first key if the
          store has none, and publishes the one INTERLOCK_RECEIPT_KEY gives.
rotate    makes a new key and retires the others: processes that sign with a
          key kept in the store move to the new one within 30 s; receipts of a
          retired key still verify until they expire. A process given its key
          by INTERLOCK_RECEIPT_KEY keeps it: give it a new one, then retire the
          old one.
retire    retires the key KID (its receipts still verify until they expire).
generate  prints a new private key as a JWK, for INTERLOCK_RECEIPT_KEY (give
          the same one to every process of the deployment). Keep it secret;
          never put it in interlock.toml.

Options:
      --store SPEC      the store (see Stores below)
  -h, --help            show this help

${STORE_HELP}

Exit codes:
  0    printed, rotated or retired
  1    the store could not be read, or retire named no key in use
  2    usage error: unknown subcommand, missing KID
`;
