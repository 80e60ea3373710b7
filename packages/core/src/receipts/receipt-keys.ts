import {
  generateReceiptKey,
  jwksOf,
  receiptKeyPair,
  type JSONWebKeySet,
  type JWK,
  type ReceiptKeyPair,
} from '@interlock/receipts';
import type { Clock } from '../engine/clock.js';
import { InterlockError } from '../errors/interlock-error.js';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { GlobalChange, GlobalsKeeper } from '../persistence/unit-of-work.js';
import { nodeSigningKeyOf, type NodeSigningKey } from './sign-now.js';

/** Where a deployment's receipt keys are kept: a global-variable scope no workflow id can take. */
export const RECEIPT_KEYS_SCOPE = 'interlock:receipt-keys';

/** How often a process looks at the store's keys again (a rotation elsewhere reaches it within this). */
export const RECEIPT_KEY_REFRESH_MS = 30_000;

/** One key of the deployment, as the store keeps it. */
export interface StoredReceiptKey {
  kid: string;
  publicJwk: JWK;
  /** The private half of a key generated here (kept in the store); absent for a key given by environment, and once retired. */
  privateJwk?: JWK;
  /** `generated` in the store, or given to some process by environment (`INTERLOCK_RECEIPT_KEY`). */
  source: 'generated' | 'environment';
  createdAt: string;
  /** When it stopped signing; its public half stays published until `publishedUntil`. */
  retiredAt?: string;
  publishedUntil?: string;
}

/** A key as `interlock receipts keys` lists it. */
export interface ReceiptKeyInfo {
  kid: string;
  source: StoredReceiptKey['source'];
  createdAt: string;
  retiredAt?: string;
  publishedUntil?: string;
}

/**
 * The deployment's receipt keys (F63), kept in the store so every process of a deployment
 * signs with keys the JWKS lists: a process signs with the key given to it by environment,
 * else with the newest key generated in the store (made on first use). Rotation generates a
 * new key and retires the others; a retired key's public half stays in the JWKS for its
 * receipts' lifetime and a refresh more (the overlap), then leaves it (the store keeps it, for the audit).
 */
export class ReceiptKeyRing {
  private cached: { key: NodeSigningKey; at: number } | undefined;
  private loading: Promise<NodeSigningKey> | undefined;

  constructor(
    private readonly store: Pick<ICheckpointStore, 'getGlobalVariables'>,
    /** Writes the keys: the answer desk. */
    private readonly desk: GlobalsKeeper,
    private readonly clock: Clock,
    private readonly options: { ttlSeconds: number; given?: JWK | undefined },
  ) {}

  /** The key this process signs with now (refreshed from the store every {@link RECEIPT_KEY_REFRESH_MS}). */
  signingKey(): Promise<NodeSigningKey> {
    const cached = this.cached;
    if (cached !== undefined && this.clock.now() - cached.at < RECEIPT_KEY_REFRESH_MS)
      return Promise.resolve(cached.key);
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  /** The public keys services check receipts against: every key in use, and retired ones within their overlap. */
  async jwks(): Promise<JSONWebKeySet> {
    const now = this.clock.now();
    const keys = Object.values(await this.present()).filter((key) => published(key, now));
    return jwksOf(keys.sort(byCreation).map((key) => key.publicJwk));
  }

  /**
   * Every public key the deployment ever signed with, retired ones too: what an audit of past
   * receipts is checked against (a service checks against {@link jwks}).
   */
  async archive(): Promise<JSONWebKeySet> {
    return jwksOf(
      Object.values(await this.present())
        .sort(byCreation)
        .map((key) => key.publicJwk),
    );
  }

  /** Every key the store holds, newest first, without their private halves. */
  async list(): Promise<ReceiptKeyInfo[]> {
    // Those in use first, each group newest first.
    return Object.values(await this.present())
      .sort(
        (left, right) =>
          Number(left.retiredAt !== undefined) - Number(right.retiredAt !== undefined) || byCreation(right, left),
      )
      .map(({ kid, source, createdAt, retiredAt, publishedUntil }) => ({
        kid,
        source,
        createdAt,
        ...(retiredAt === undefined ? {} : { retiredAt }),
        ...(publishedUntil === undefined ? {} : { publishedUntil }),
      }));
  }

  /**
   * Generates a new key and retires every other one (their public halves stay published for
   * the overlap). Processes signing with a stored key move to the new one within a refresh;
   * a process given its key by environment keeps it: give it a new one, then retire the old.
   */
  async rotate(): Promise<{ kid: string; retired: string[] }> {
    const pair = await generateReceiptKey();
    const stored = await this.stored();
    const now = this.clock.now();
    const retiring = Object.values(stored).filter((key) => key.retiredAt === undefined);
    const committed = await this.desk.keepGlobals([
      ...retiring.map((key) => this.retirement(key, now)),
      { kind: 'set', scope: RECEIPT_KEYS_SCOPE, name: pair.kid, value: generated(pair, now) },
    ]);
    if (!committed)
      throw new InterlockError('STORE_CONFLICT', 'the receipt keys changed while they were rotated: rotate again');
    this.cached = undefined;
    return { kid: pair.kid, retired: retiring.map((key) => key.kid) };
  }

  /** Retires one key (its public half stays published for the overlap). False when no such key is in use. */
  async retire(kid: string): Promise<boolean> {
    const key = (await this.stored())[kid];
    if (key === undefined || key.retiredAt !== undefined) return false;
    const committed = await this.desk.keepGlobals([this.retirement(key, this.clock.now())]);
    this.cached = undefined;
    return committed;
  }

  private async load(): Promise<NodeSigningKey> {
    const now = this.clock.now();
    const key =
      this.options.given === undefined ? await this.storedKey(now) : await this.givenKey(this.options.given, now);
    this.cached = { key, at: now };
    return key;
  }

  /** The key given by environment, recorded in the store (its public half) so the JWKS lists it. */
  private async givenKey(given: JWK, now: number): Promise<NodeSigningKey> {
    let pair: ReceiptKeyPair;
    try {
      pair = await receiptKeyPair(given);
    } catch (error) {
      throw new InterlockError(
        'INVALID_OPTIONS',
        `the receipt key (INTERLOCK_RECEIPT_KEY) is not an Ed25519 private key as a JWK: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const stored = (await this.stored())[pair.kid];
    if (stored?.retiredAt !== undefined)
      throw new InterlockError(
        'INVALID_OPTIONS',
        `the receipt key given by INTERLOCK_RECEIPT_KEY (${pair.kid}) was retired at ${stored.retiredAt}: give this process the current key`,
      );
    if (stored === undefined) {
      const record: StoredReceiptKey = {
        kid: pair.kid,
        publicJwk: pair.publicJwk,
        source: 'environment',
        createdAt: new Date(now).toISOString(),
      };
      await this.desk.keepGlobals([
        { kind: 'set-if-absent', scope: RECEIPT_KEYS_SCOPE, name: pair.kid, value: record },
      ]);
    }
    return nodeSigningKeyOf(pair);
  }

  /** The newest key generated in the store that still signs; one is generated when there is none. */
  private async storedKey(now: number): Promise<NodeSigningKey> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const usable = Object.values(await this.stored())
        .filter((key) => key.retiredAt === undefined && key.privateJwk !== undefined)
        .sort(byCreation)
        .at(-1);
      if (usable?.privateJwk !== undefined) return nodeSigningKeyOf(await receiptKeyPair(usable.privateJwk));
      const pair = await generateReceiptKey();
      // Two processes starting together may both generate one: both sign, both are published.
      await this.desk.keepGlobals([
        { kind: 'set-if-absent', scope: RECEIPT_KEYS_SCOPE, name: pair.kid, value: generated(pair, now) },
      ]);
    }
    throw new InterlockError('STORE_CONFLICT', 'no receipt key could be kept in the store: try again');
  }

  /** The stored keys; when there are none yet, this process's key is made (or recorded) first. */
  private async present(): Promise<Record<string, StoredReceiptKey>> {
    const stored = await this.stored();
    if (Object.keys(stored).length > 0) return stored;
    await this.signingKey();
    return this.stored();
  }

  private async stored(): Promise<Record<string, StoredReceiptKey>> {
    return (await this.store.getGlobalVariables(RECEIPT_KEYS_SCOPE)) as Record<string, StoredReceiptKey>;
  }

  /** The write that retires `key`: no private half any more, published until its last receipt expired. */
  private retirement(key: StoredReceiptKey, now: number): GlobalChange {
    const { privateJwk: _dropped, ...rest } = key;
    const overlap = this.options.ttlSeconds * 1000 + 2 * RECEIPT_KEY_REFRESH_MS;
    const value: StoredReceiptKey = {
      ...rest,
      retiredAt: new Date(now).toISOString(),
      publishedUntil: new Date(now + overlap).toISOString(),
    };
    return { kind: 'set', scope: RECEIPT_KEYS_SCOPE, name: key.kid, value };
  }
}

function generated(pair: ReceiptKeyPair, now: number): StoredReceiptKey {
  return {
    kid: pair.kid,
    publicJwk: pair.publicJwk,
    privateJwk: pair.privateJwk,
    source: 'generated',
    createdAt: new Date(now).toISOString(),
  };
}

function published(key: StoredReceiptKey, now: number): boolean {
  return key.retiredAt === undefined || (key.publishedUntil !== undefined && Date.parse(key.publishedUntil) > now);
}

function byCreation(left: StoredReceiptKey, right: StoredReceiptKey): number {
  return left.createdAt === right.createdAt
    ? left.kid.localeCompare(right.kid)
    : left.createdAt.localeCompare(right.createdAt);
}
