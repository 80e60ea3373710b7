/** Types of invisible-characters.js, for the tests that import it. */
export type RevealedPart = { text: string } | { invisible: string; label: string } | { blanks: string; label: string };
export const LONG_BLANK_RUN: { blanks: number; newlines: number };
export function blankRunLabel(run: string): string;
export function isInvisible(character: string): boolean;
export function codePointLabel(character: string): string;
export function revealInvisible(text: string): RevealedPart[];
export function countInvisible(text: string): number;
export function countBlankRuns(text: string): number;
export function renderRevealed(element: unknown, text: string): void;
