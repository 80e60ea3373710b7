/**
 * Types of invisible-characters.js: the page's modules and the tests (type-checked without
 * the DOM's types) both read them, and the module checks its exports against them.
 */
export type RevealedPart = { text: string } | { invisible: string; label: string } | { blanks: string; label: string };
/** Where renderRevealed writes: an element of the page, described without the DOM's types. */
export interface RevealTarget {
  replaceChildren(): void;
  append(...nodes: Array<object | string>): void;
}
export const LONG_BLANK_RUN: { blanks: number; newlines: number };
export function blankRunLabel(run: string): string;
export function isInvisible(character: string): boolean;
export function codePointLabel(character: string): string;
export function revealInvisible(text: string): RevealedPart[];
export function countInvisible(text: string): number;
export function countBlankRuns(text: string): number;
export function renderRevealed(element: RevealTarget, text: string): void;
