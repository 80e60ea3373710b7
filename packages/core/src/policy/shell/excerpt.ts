/** Shortens text quoted in a reason, so a huge command does not make a huge reason. */
export function excerpt(text: string, limit = 60): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length <= limit ? oneLine : `${oneLine.slice(0, limit - 1)}…`;
}
