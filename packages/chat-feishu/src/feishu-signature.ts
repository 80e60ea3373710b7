import { sameDigest, sha256Hex, type RefusedRequest, type ReplayGuard } from '@interlock/chat';

/** The headers Feishu / Lark signs a callback with. */
export interface FeishuSignatureHeaders {
  timestamp: string | undefined;
  nonce: string | undefined;
  signature: string | undefined;
}

/**
 * Checks a callback from Feishu / Lark: SHA-256 of `timestamp + nonce + key + raw body`,
 * compared in constant time over the bytes that arrived (the SDK compares with `===` over JSON
 * it serialised again, and checks nothing when no key is configured); the timestamp within 5
 * minutes either way; the signature not seen before within that window.
 */
export function verifyFeishuRequest(
  encryptKey: string,
  headers: FeishuSignatureHeaders,
  rawBody: Buffer,
  replay: ReplayGuard,
): RefusedRequest | undefined {
  const { timestamp, nonce, signature } = headers;
  if (timestamp === undefined || nonce === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp))
    return 'bad_signature';
  const expected = sha256Hex(Buffer.concat([Buffer.from(timestamp + nonce + encryptKey, 'utf8'), rawBody]));
  if (!sameDigest(expected, signature)) return 'bad_signature';
  return replay.check(Number(timestamp) * 1000, signature);
}
