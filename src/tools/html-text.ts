/**
 * An HTML page as the text the model reads: its title, then its body's text, blocks on lines of
 * their own, tables row by row, lists as lists; no markup, scripts, styles, images or link
 * targets. A tool that fetches a web page (a shop's opening hours, a status page) otherwise hands
 * the model the page's `<head>` — scripts and styles — within the first LLM_TOOL_RESULT_MAX_CHARS.
 * The reading runs in a worker thread (assets/html-text-worker.mjs), started with the first page
 * a tool fetches: an engine whose tools fetch none does not carry html-to-text (10 MB).
 */
import { Worker } from 'node:worker_threads';

const WORKER_URL = new URL('../../assets/html-text-worker.mjs', import.meta.url);
/** A page still not read by then is read crudely (tags dropped) and its worker replaced. */
const READ_MS = 5000;

let worker: Worker | undefined;
let lastId = 0;
const waiting = new Map<number, (reply: { text?: string; error?: string }) => void>();

function started(): Worker {
  if (worker) return worker;
  // Node's flags but --input-type, which a worker started from a file refuses (`node -e`).
  const execArgv = process.execArgv.filter((flag) => !flag.startsWith('--input-type'));
  const fresh = new Worker(WORKER_URL, { execArgv });
  fresh.on('message', (reply: { id: number; text?: string; error?: string }) => {
    waiting.get(reply.id)?.(reply);
  });
  const gone = () => {
    if (worker === fresh) worker = undefined;
    for (const done of waiting.values()) done({ error: 'the HTML reader stopped' });
  };
  fresh.on('error', gone);
  fresh.on('exit', gone);
  fresh.unref(); // after the listeners, which would hold the process again
  return (worker = fresh);
}

/** The media types of HTML. */
export function isHtml(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

/**
 * The text of `html`, read from at most `markupChars` of its markup once scripts and styles are
 * out (the model reads only the result's first LLM_TOOL_RESULT_MAX_CHARS anyway). A page the
 * reader fails on, or takes over 5 s for, is given with its tags dropped.
 */
export function htmlText(html: string, markupChars: number): Promise<string> {
  const id = ++lastId;
  const reader = started();
  return new Promise<string>((resolve) => {
    const timer = setTimeout(() => {
      void reader.terminate();
      done({ error: 'timed out' });
    }, READ_MS);
    const done = (reply: { text?: string; error?: string }) => {
      clearTimeout(timer);
      waiting.delete(id);
      resolve(reply.text ?? crudeText(html.slice(0, markupChars)));
    };
    waiting.set(id, done);
    reader.postMessage({ id, html, markupChars });
  });
}

/** Markup with its tags dropped and its spaces joined: what a page the reader failed on gives. */
function crudeText(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, ' ')
    .replace(/[ \t\r\f]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}

/** How much markup to read for a result of at most `resultChars`: 32 times that, 64 K to 256 K. */
export function markupFor(resultChars: number): number {
  return Math.min(256 * 1024, Math.max(64 * 1024, resultChars * 32));
}
