// Builds elements without innerHTML: every string becomes a text node, so nothing an agent
// proposes can turn into markup.
/* global document, Node */

/**
 * h('button', { class: 'approve', onclick: approve }, 'Approve')
 * @param {string} tag
 * @param {Record<string, unknown> | null} attributes
 * @param {...(Node | string | number | null | undefined | false)} children
 */
export function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = String(value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name === 'value') element.value = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A short form of a long id, for display: the first 8 characters. */
export function shortId(id) {
  return String(id).slice(0, 8);
}

/** A local time, e.g. 14:03:27. */
export function clockTime(iso) {
  return new Date(iso).toLocaleTimeString([], { hour12: false });
}

/** "4m 05s" for a duration in milliseconds. */
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
