// Builds elements without innerHTML: every string becomes a text node, so nothing an agent
// proposes can turn into markup.
/* global document, Node */

/**
 * What `h` takes besides the tag: `class`, `dataset`, `value` (set as the property), an
 * `on<event>` listener, or any other attribute (`true` sets it empty; null, undefined and
 * false leave it out).
 * @typedef {{ [E in keyof HTMLElementEventMap as `on${E}`]?: (event: HTMLElementEventMap[E]) => unknown } & { [name: string]: unknown }} Attributes
 */

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * How a view reports to the person: a line in the notices, in a tone.
 * @typedef {(message: string, tone?: 'info' | 'ok' | 'warn' | 'error') => void} Notify
 */

/**
 * h('button', { class: 'approve', onclick: approve }, 'Approve')
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes | null} [attributes]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function')
      element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else if (name === 'class') element.className = String(value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    // The property, not the attribute: what a field or a select shows.
    else if (name === 'value') Object.assign(element, { value: String(value) });
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {HTMLElement} element
 * @param {Child[]} children
 */
function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * A short form of a long id, for display: the first 8 characters.
 * @param {string} id
 */
export function shortId(id) {
  return String(id).slice(0, 8);
}

/**
 * A local time, e.g. 14:03:27.
 * @param {string} iso
 */
export function clockTime(iso) {
  return new Date(iso).toLocaleTimeString([], { hour12: false });
}

/**
 * "4m 05s" for a duration in milliseconds.
 * @param {number} milliseconds
 */
export function formatRemaining(milliseconds) {
  if (milliseconds <= 0) return 'expired';
  const seconds = Math.ceil(milliseconds / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m ${String(rest).padStart(2, '0')}s`;
  return `${rest}s`;
}
