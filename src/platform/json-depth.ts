/**
 * How deeply a JSON request body may nest objects and arrays. Legitimate bodies (documents with metadata and ACLs,
 * connector settings, MCP tool arguments) stay under ten levels; thousands of levels made every recursive walk
 * that follows the parse (the NUL check, content hashing, schema validation) overflow the call stack: a 500 and a
 * logged stack trace per request, on public routes too.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text `text` opens more than `limit` nested objects or arrays. Scans the characters once with
 * no recursion (strings and their escapes are skipped), so it runs before `JSON.parse` at any depth.
 */
export function jsonDepthExceeds(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
