import { parseHtml } from '../kit/index.ts';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** An attribute's value as written: already XML-escaped, so it goes into the HTML as it is (no second escaping). */
const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1] ?? null;

/**
 * Confluence storage format (XHTML with `ac:` macros and `ri:` resource identifiers) as readable text: the kit's HTML
 * parser does the XHTML, after the Confluence-only parts become plain HTML: CDATA bodies (code blocks, plain-text link
 * bodies) become escaped text, code macros `<pre>`, links to pages/attachments/users their titles, file names and
 * names, task checkboxes `[ ]`/`[x]`, dates their value; macro parameters and emoticons are dropped.
 */
export function storageToText(storage: string, userNames: ReadonlyMap<string, string> = new Map()): string {
  const html = storage
    .replace(/<ac:parameter\b[^>]*>[\s\S]*?<\/ac:parameter>/g, '')
    .replace(/<ac:plain-text-body>/g, '<pre>')
    .replace(/<\/ac:plain-text-body>/g, '</pre>')
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_m, text: string) => escapeHtml(text))
    .replace(/<ri:page\b[^>]*\/>/g, (tag) => attr(tag, 'ri:content-title') ?? '')
    .replace(/<ri:blog-post\b[^>]*\/>/g, (tag) => attr(tag, 'ri:content-title') ?? '')
    .replace(/<ri:attachment\b[^>]*\/>/g, (tag) => `[${attr(tag, 'ri:filename') ?? 'attachment'}]`)
    .replace(/<ri:user\b[^>]*\/>/g, (tag) => {
      const name = userNames.get(attr(tag, 'ri:account-id') ?? '');
      return name ? escapeHtml(`@${name}`) : '';
    })
    .replace(/<ri:url\b[^>]*\/>/g, (tag) => attr(tag, 'ri:value') ?? '')
    .replace(/<ac:task-status>\s*complete\s*<\/ac:task-status>/g, '[x] ')
    .replace(/<ac:task-status>[\s\S]*?<\/ac:task-status>/g, '[ ] ')
    .replace(/<ac:task>/g, '<p>')
    .replace(/<\/ac:task>/g, '</p>')
    .replace(/<ac:task-id>[\s\S]*?<\/ac:task-id>/g, '')
    .replace(/<ac:emoticon\b[^>]*\/>/g, '')
    .replace(/<time\b[^>]*\/>/g, (tag) => attr(tag, 'datetime') ?? '');
  return parseHtml(html).content;
}

/** Account ids mentioned in a storage body (`<ri:user ri:account-id="…"/>`), so their names can be looked up first. */
export function mentionedUsers(storage: string): string[] {
  return [...storage.matchAll(/<ri:user\b[^>]*ri:account-id="([^"]+)"/g)].map((m) => m[1] ?? '').filter(Boolean);
}
