/**
 * An HTML page as the text the model reads: its title, then its body's text, blocks on lines of
 * their own, tables row by row, lists as lists; no markup, scripts, styles, images or link
 * targets. A tool that fetches a web page (a shop's opening hours, a status page) otherwise hands
 * the model the page's `<head>` — scripts and styles — within the first LLM_TOOL_RESULT_MAX_CHARS.
 * Pure: no Nest import.
 */
import type { HtmlToTextOptions } from 'html-to-text';

/** Elements whose content is no text a reader sees. */
const UNSEEN = ['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'button', 'select'];

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    ...UNSEEN.map((selector) => ({ selector, format: 'skip' })),
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
      selector,
      options: { uppercase: false },
    })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
};

/**
 * The converter, made with the first page a tool fetches: an engine whose tools fetch none does
 * not carry html-to-text (60 ms to import, 10 MB).
 */
let converter: Promise<(html: string) => string> | undefined;

/** Scripts and styles, taken out before parsing: on many pages they are most of the markup. */
const SCRIPTS_AND_STYLES = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
/** The page's title, read before its head is taken out (a fragment has no body to read from). */
const TITLE = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i;
const HEAD = /<head\b[^>]*>[\s\S]*?<\/head\s*>/i;

/** The media types of HTML. */
export function isHtml(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

/**
 * The text of `html`, read from at most `markupChars` of its markup once scripts and styles are
 * out (parsing costs the engine's event loop ~0.15 ms a KB; the model reads only the result's
 * first LLM_TOOL_RESULT_MAX_CHARS anyway).
 */
export async function htmlText(html: string, markupChars: number): Promise<string> {
  converter ??= import('html-to-text').then(({ compile }) => compile(OPTIONS));
  const toText = await converter;
  const markup = html.replace(SCRIPTS_AND_STYLES, '').slice(0, markupChars);
  const title = toText(TITLE.exec(markup)?.[1] ?? '').trim();
  const body = toText(markup.replace(HEAD, '').replace(TITLE, ''))
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return title && body ? `${title}\n\n${body}` : title || body;
}

/** How much markup to read for a result of at most `resultChars`: 32 times that, 64 K to 256 K. */
export function markupFor(resultChars: number): number {
  return Math.min(256 * 1024, Math.max(64 * 1024, resultChars * 32));
}
