/** What an MCP server sends, as text a person and a model can read. */

/** A content block as text for the model and the approver: text as is, anything else described. */
export function describeBlock(block: { type: string; [key: string]: unknown }): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'image':
    case 'audio':
      return `[${block.type} ${textOf(block.mimeType)}, ${typeof block.data === 'string' ? Math.floor((block.data.length * 3) / 4) : 0} bytes]`;
    case 'resource_link':
      return `[resource ${textOf(block.uri)}]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as { uri?: unknown; text?: unknown };
      return typeof resource.text === 'string' ? resource.text : `[resource ${textOf(resource.uri)}]`;
    }
    default:
      return `[${block.type}]`;
  }
}

/** A field of a server's content block as text: the server's JSON is not checked. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * A name a server or a file gave, quoted, with every character outside printable ASCII as
 * `\\uXXXX`: a look-alike (`delete_\\u0430ll`), a zero-width or a direction-changing
 * character shows for what it is.
 */
export function quotedName(name: string): string {
  return JSON.stringify(name).replace(
    /[^\x20-\x7e]/g,
    (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}
