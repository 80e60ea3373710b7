/** How a chat message reads as an answer to a pending tool approval. */
export type ApprovalReply = 'approve' | 'reject' | 'ambiguous' | 'none';

/**
 * Which pending approvals a clear reply names: every one (`all`), some by their number in
 * the list the channel showed (1-based), or none named (a bare "yes").
 */
export type ApprovalTargets = { kind: 'unnamed' } | { kind: 'all' } | { kind: 'numbered'; numbers: number[] };

/** The answer to a call that may have run before a restart (stage `recovery`, F40): `done`, `retry` or `fail`. */
export type ReplyResolution = 'done' | 'retry' | 'fail';

/**
 * A chat message read as an approval reply: `ambiguous` looks like one but is not in the
 * grammar. `done` and `retry` approve, `failed` rejects, each with its `resolution`.
 */
export type ParsedApprovalReply =
  | { kind: 'approve' | 'reject'; targets: ApprovalTargets; resolution?: ReplyResolution }
  | { kind: 'ambiguous' }
  | { kind: 'none' };

/** The words that decide, exactly as written (Latin ones in any case); seeds 002/003 use English and Chinese. */
const APPROVE_TOKENS = new Set(['yes', 'approve', '是', '同意']);
const REJECT_TOKENS = new Set(['no', 'reject', '否', '拒绝']);
const ALL_TOKENS = new Set(['all', '全部']);
/** The answers to a call that may have run before a restart (issue 37). */
const RESOLUTION_TOKENS: ReadonlyMap<string, ReplyResolution> = new Map([
  ['done', 'done'],
  ['retry', 'retry'],
  ['failed', 'fail'],
]);

/** Words that show the sender meant to decide but did not say it in the grammar: asked again, never taken. */
const DECISION_LIKE = new Set([
  ...APPROVE_TOKENS,
  ...REJECT_TOKENS,
  'y',
  'n',
  'yeah',
  'yep',
  'yup',
  'ok',
  'okay',
  'k',
  'kk',
  'sure',
  'fine',
  'approved',
  'accept',
  'allow',
  'confirm',
  'lgtm',
  'nope',
  'nah',
  'rejected',
  'deny',
  'denied',
  'decline',
  'refuse',
  "don't",
  'stop',
  'cancel',
  '👍',
  '👎',
  '✅',
  '❌',
  '好',
  '好的',
  '可以',
  '行',
  '确认',
  '批准',
  '不',
  '不行',
  '不要',
  '不可以',
]);

/**
 * Reads a chat message as an answer to a pending tool approval. The grammar is exact, so a
 * question ("yes?"), an emoji ("👍"), "ok" or "yes but…" never decides:
 *
 * - `approve` / `reject`: the whole message is a decision token (`yes`, `no`, `approve`,
 *   `reject`, `是`, `否`, `同意`, `拒绝`; Latin ones in any case; `done`, `retry` and `failed`
 *   for a call that may have run before a restart, with their `resolution`), optionally followed by `all`
 *   (`全部`) or call numbers (`yes 2`, `no #1, 3`). Surrounding blanks are ignored; nothing else is.
 * - `ambiguous`: it looks like an answer and is not one ("ok", "yes?", "👍", "yes please",
 *   "yes but change the path"). Never taken as a decision: the sender is told how to decide.
 * - `none`: an ordinary message.
 *
 * @example
 * classifyApprovalReply(' Yes ');                  // 'approve'
 * classifyApprovalReply('yes?');                   // 'ambiguous'
 * classifyApprovalReply('write the notes');        // 'none'
 */
export function classifyApprovalReply(text: string): ApprovalReply {
  return parseApprovalReply(text).kind;
}

/** Like {@link classifyApprovalReply}, with the approvals a clear reply names. */
export function parseApprovalReply(text: string): ParsedApprovalReply {
  const trimmed = text.trim();
  const exact = exactReply(trimmed);
  if (exact !== undefined) return exact;
  const words = trimmed
    .toLowerCase()
    .split(/[^\p{L}\p{N}\p{Extended_Pictographic}']+/u)
    .filter((word) => word !== '');
  // Code points, not graphemes, on purpose: 👍🏽 (a skin tone) or ✅️ (a variation selector) still shows its sign.
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- see above
  const signs = [...trimmed].filter((character) => !/[a-z]/i.test(character));
  return words.some((word) => DECISION_LIKE.has(word)) || signs.some((character) => DECISION_LIKE.has(character))
    ? { kind: 'ambiguous' }
    : { kind: 'none' };
}

function exactReply(text: string): ParsedApprovalReply | undefined {
  const [first = '', ...rest] = splitDecision(text);
  const lower = first.toLowerCase();
  const resolution = RESOLUTION_TOKENS.get(lower);
  const kind =
    APPROVE_TOKENS.has(lower) || resolution === 'done' || resolution === 'retry'
      ? 'approve'
      : REJECT_TOKENS.has(lower) || resolution === 'fail'
        ? 'reject'
        : undefined;
  if (kind === undefined || (lower !== first && !/^[a-z]+$/i.test(first))) return undefined;
  const targets = readTargets(rest.join(' '));
  if (targets === undefined) return undefined;
  return resolution === undefined ? { kind, targets } : { kind, targets, resolution };
}

/** The decision token and what follows it; a Chinese token needs no space before its targets. */
function splitDecision(text: string): string[] {
  const cjk = /^(是|否|同意|拒绝)(.*)$/su.exec(text);
  if (cjk) return [cjk[1] ?? '', (cjk[2] ?? '').trim()];
  const space = text.search(/\s/);
  return space === -1 ? [text] : [text.slice(0, space), text.slice(space).trim()];
}

/** `` (none named), `all`, or numbers 1–999 separated by blanks or commas; undefined for anything else. */
function readTargets(text: string): ApprovalTargets | undefined {
  if (text === '') return { kind: 'unnamed' };
  if (ALL_TOKENS.has(text.toLowerCase())) return { kind: 'all' };
  if (!/^#?[1-9]\d{0,2}(?:(?:\s*,\s*|\s+)#?[1-9]\d{0,2})*$/.test(text)) return undefined;
  const numbers = text
    .split(/[\s,#]+/)
    .filter((part) => part !== '')
    .map(Number);
  return { kind: 'numbered', numbers: [...new Set(numbers)] };
}
