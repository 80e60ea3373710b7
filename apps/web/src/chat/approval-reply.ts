/** How a chat message reads as an answer to a pending tool approval. */
export type ApprovalReply = 'approve' | 'reject' | 'ambiguous' | 'none';

/**
 * Which pending approvals a clear reply names: every one (`all`), some by their number in
 * the list the channel showed (1-based), or none named (a bare "yes").
 */
export type ApprovalTargets = { kind: 'unnamed' } | { kind: 'all' } | { kind: 'numbered'; numbers: number[] };

/** A chat message read as an approval reply. */
export type ParsedApprovalReply =
  | { kind: 'approve' | 'reject'; targets: ApprovalTargets }
  | { kind: 'ambiguous' }
  | { kind: 'none' };

const APPROVE_WORDS = new Set([
  'yes', 'y', 'yeah', 'yea', 'yep', 'yup', 'ya', 'ok', 'okay', 'k', 'kk', 'sure', 'approve', 'approved',
  'accept', 'accepted', 'allow', 'allowed', 'confirm', 'confirmed', 'lgtm', 'fine', '👍', '✅',
  '是', '是的', '好', '好的', '可以', '行', '同意', '确认', '批准',
]);

const REJECT_WORDS = new Set([
  'no', 'n', 'nope', 'nah', 'reject', 'rejected', 'deny', 'denied', 'decline', 'declined', 'refuse',
  "don't", 'stop', 'cancel', '👎', '❌', '否', '不', '不行', '不要', '拒绝', '不可以',
]);

/** Words that show the sender is deciding, wherever they stand in a message. */
const STRONG_WORDS = new Set([
  'yes', 'approve', 'approved', 'reject', 'rejected', 'deny', 'denied', 'nope', 'lgtm',
  '👍', '👎', '✅', '❌', '同意', '拒绝', '批准',
]);

/** Politeness that does not change a reply. */
const FILLER_WORDS = new Set(['please', 'pls', 'thanks', 'thx', 'ty']);

const ALL_WORDS = new Set(['all', 'both', 'everything', '全部', '都']);

/** Set phrases, rewritten to one word before a reply is read (the longer ones first). */
const PHRASES: readonly (readonly [string, string])[] = [
  ["don't do it", 'no'],
  ['do not do it', 'no'],
  ['no thank you', 'no'],
  ['no thanks', 'no'],
  ['not now', 'no'],
  ['do not', "don't"],
  ['go ahead', 'ok'],
  ['do it', 'ok'],
  ['sounds good', 'ok'],
  ['of course', 'yes'],
  ['thank you', 'thanks'],
];

const NUMBER = /^#?(\d{1,3})$/;

/**
 * Reads a chat message as an answer to a pending tool approval.
 *
 * - `approve` / `reject`: the whole message is a yes or a no, in any case, with punctuation,
 *   politeness ("yes please", "no thanks") and optional targets ("yes 2", "approve #1 and 3",
 *   "no all", or "all" alone, which approves every one).
 * - `ambiguous`: it looks like an answer but is not a clear one: both a yes and a no
 *   ("yes and no", "no, don't… yes"), or a yes or no followed by anything else
 *   ("yes but change the path"). Never to be taken as an approval.
 * - `none`: an ordinary message.
 *
 * @example
 * classifyApprovalReply(' Yes! ');                 // 'approve'
 * classifyApprovalReply('yes but change the path'); // 'ambiguous'
 * classifyApprovalReply('write the notes');         // 'none'
 */
export function classifyApprovalReply(text: string): ApprovalReply {
  return parseApprovalReply(text).kind;
}

/** Like {@link classifyApprovalReply}, with the approvals a clear reply names. */
export function parseApprovalReply(text: string): ParsedApprovalReply {
  const words = wordsOf(text);
  if (words.length === 0) return { kind: 'none' };
  const decisions = new Set<'approve' | 'reject'>();
  let index = 0;
  for (; index < words.length; index += 1) {
    const word = words[index] ?? '';
    if (APPROVE_WORDS.has(word)) decisions.add('approve');
    else if (REJECT_WORDS.has(word)) decisions.add('reject');
    else if (!FILLER_WORDS.has(word)) break;
  }
  const targets = readTargets(words.slice(index), decisions.size > 0);
  if (decisions.size === 0) {
    // "all" alone approves every pending approval; anything else starts like a message.
    if (targets?.kind === 'all' && words.some((word) => ALL_WORDS.has(word))) return { kind: 'approve', targets };
    return looksLikeAnAnswer(words) ? { kind: 'ambiguous' } : { kind: 'none' };
  }
  if (decisions.size > 1 || targets === undefined) return { kind: 'ambiguous' };
  const [decision] = [...decisions];
  return decision === undefined ? { kind: 'ambiguous' } : { kind: decision, targets };
}

/** The targets after the yes or no, or undefined when other words follow. */
function readTargets(words: readonly string[], afterDecision: boolean): ApprovalTargets | undefined {
  const numbers: number[] = [];
  let all = false;
  for (const [index, word] of words.entries()) {
    const number = NUMBER.exec(word)?.[1];
    if (number !== undefined && Number(number) > 0) numbers.push(Number(number));
    else if (ALL_WORDS.has(word)) all = true;
    else if (word === 'to' && index === 0 && afterDecision) continue;
    else if (word === 'and' && index > 0) continue;
    else if (!FILLER_WORDS.has(word)) return undefined;
  }
  if (all && numbers.length > 0) return undefined;
  if (all) return { kind: 'all' };
  return numbers.length === 0 ? { kind: 'unnamed' } : { kind: 'numbered', numbers: [...new Set(numbers)] };
}

/** Starts with a yes or a no, names a decision outright, or holds both a yes and a no word. */
function looksLikeAnAnswer(words: readonly string[]): boolean {
  const first = words[0] ?? '';
  if (APPROVE_WORDS.has(first) || REJECT_WORDS.has(first)) return true;
  if (words.some((word) => STRONG_WORDS.has(word))) return true;
  return words.some((word) => APPROVE_WORDS.has(word)) && words.some((word) => REJECT_WORDS.has(word));
}

/** Lower-case words, punctuation dropped, set phrases rewritten ("go ahead" → "ok"). */
function wordsOf(text: string): string[] {
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’`´]/g, "'")
    .split(/[^\p{L}\p{N}\p{Extended_Pictographic}'#]+/u)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .map((word) => (word === 'dont' ? "don't" : word))
    .filter((word) => word.length > 0);
  let joined = ` ${words.join(' ')} `;
  for (const [phrase, replacement] of PHRASES) joined = joined.replaceAll(` ${phrase} `, ` ${replacement} `);
  return joined.split(' ').filter((word) => word.length > 0);
}
