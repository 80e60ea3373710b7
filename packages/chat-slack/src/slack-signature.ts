import { hmacSha256Hex, sameDigest, type RefusedRequest, type ReplayGuard } from '@interlock/chat';

/** The headers Slack signs a request with. */
export interface SlackSignatureHeaders {
  timestamp: string | undefined;
  signature: string | undefined;
}

/**
 * Checks a request from Slack (its documented v0 signing): `v0=` + HMAC-SHA256 of
 * `v0:<timestamp>:<raw body>` with the signing secret, compared in constant time over the
 * bytes Slack sent (never a re-serialised body); the timestamp within 5 minutes of now in
 * either direction, and the signature not seen before within that window.
 *
 * @returns undefined when the request may be read, or why it is refused.
 */
export function verifySlackRequest(
  signingSecret: string,
  headers: SlackSignatureHeaders,
  rawBody: Buffer,
  replay: ReplayGuard,
): RefusedRequest | undefined {
  const { timestamp, signature } = headers;
  if (timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) return 'bad_signature';
  const expected = `v0=${hmacSha256Hex(signingSecret, Buffer.concat([Buffer.from(`v0:${timestamp}:`), rawBody]))}`;
  if (!sameDigest(expected, signature)) return 'bad_signature';
  return replay.check(Number(timestamp) * 1000, signature);
}
