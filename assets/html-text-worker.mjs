// Worker thread reading HTML pages as text (src/tools/html-text.ts), off the main event loop:
// html-to-text takes from a few ms to over half a second for a page (a table of 20 000 rows,
// divs nested 50 000 deep), time every session's stream would otherwise wait.
import { parentPort } from 'node:worker_threads';
import { compile } from 'html-to-text';

/** Elements whose content is no text a reader sees. */
const UNSEEN = ['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'button', 'select'];

const OPTIONS = {
  wordwrap: false,
  // Past these, html-to-text's walk would exhaust the stack or take seconds.
  limits: { maxDepth: 100, maxChildNodes: 2000, ellipsis: '…' },
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
const toText = compile(OPTIONS);

/** Navigation: menus, breadcrumbs, a site's links. */
const NAVIGATION = ['nav', '[role="navigation"]'];

/**
 * The page's own content, where its markup says which it is: `<main>` (or `role="main"`), else its
 * `<article>`s. The model reads it first, then the rest of the page but its navigation (a shop's
 * footer may hold its address); otherwise a site's menus come first and can fill
 * LLM_TOOL_RESULT_MAX_CHARS before the content starts.
 */
const CONTENT = [
  { found: /<main\b|\srole\s*=\s*["']?main\b/i, selectors: ['main', '[role="main"]'] },
  { found: /<article\b/i, selectors: ['article'] },
].map(({ found, selectors }) => ({
  found,
  content: compile({
    ...OPTIONS,
    baseElements: { selectors, orderBy: 'occurrence', returnDomByDefault: false },
  }),
  rest: compile({
    ...OPTIONS,
    selectors: [
      ...OPTIONS.selectors,
      ...[...selectors, ...NAVIGATION].map((selector) => ({ selector, format: 'skip' })),
    ],
  }),
}));

/**
 * A page whose content is not marked, but whose navigation is: the page but its navigation first,
 * then the navigation (a page of links only is still read).
 */
const NAVIGATED = {
  found: /<nav\b|\srole\s*=\s*["']?navigation\b/i,
  first: compile({
    ...OPTIONS,
    selectors: [
      ...OPTIONS.selectors,
      ...NAVIGATION.map((selector) => ({ selector, format: 'skip' })),
    ],
  }),
  then: compile({
    ...OPTIONS,
    baseElements: { selectors: NAVIGATION, orderBy: 'occurrence', returnDomByDefault: false },
  }),
};

/**
 * `html` without its scripts and styles (on many pages most of the markup), read in one pass: an
 * element never closed takes the rest with it.
 */
function withoutScripts(html) {
  const opening = /<(script|style)\b/gi;
  let out = '';
  let from = 0;
  for (let m = opening.exec(html); m; m = opening.exec(html)) {
    out += html.slice(from, m.index);
    const closing = m[1].toLowerCase() === 'script' ? CLOSE_SCRIPT : CLOSE_STYLE;
    closing.lastIndex = opening.lastIndex;
    if (!closing.exec(html)) return out;
    from = closing.lastIndex;
    opening.lastIndex = from;
  }
  return out + html.slice(from);
}

const CLOSE_SCRIPT = /<\/script[^>]*>/gi;
const CLOSE_STYLE = /<\/style[^>]*>/gi;
const TITLE = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i;
const HEAD = /<head\b[^>]*>[\s\S]*?<\/head\s*>/i;

/** Blocks apart by one empty line at most, no spaces ending a line. */
function tidy(text) {
  return text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The body's text: its content first where the markup marks it (CONTENT), then the rest; else
 * the page but its navigation, then its navigation (NAVIGATED).
 */
function bodyText(markup) {
  for (const { found, content, rest } of CONTENT) {
    if (!found.test(markup)) continue;
    const first = tidy(content(markup));
    if (first) return [first, tidy(rest(markup))].filter(Boolean).join('\n\n');
  }
  if (NAVIGATED.found.test(markup)) {
    const first = tidy(NAVIGATED.first(markup));
    if (first) return [first, tidy(NAVIGATED.then(markup))].filter(Boolean).join('\n\n');
  }
  return tidy(toText(markup));
}

/** The title, then the body's text (a fragment with no body: all of it). */
function htmlText(html, markupChars) {
  const markup = withoutScripts(html).slice(0, markupChars);
  const title = toText(TITLE.exec(markup)?.[1] ?? '').trim();
  const body = bodyText(markup.replace(HEAD, '').replace(TITLE, ''));
  return title && body ? `${title}\n\n${body}` : title || body;
}

parentPort.on('message', ({ id, html, markupChars }) => {
  try {
    parentPort.postMessage({ id, text: htmlText(html, markupChars) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.message ?? error) });
  }
});
