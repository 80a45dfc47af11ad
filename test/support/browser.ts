import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { wavOf } from '../../src/speech/wav.js';

/** Where Debian's `chromium` package puts the browser (`.ci/run` installs it); CHROMIUM overrides. */
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * Headless Chromium as a browser client of the engine. The flags keep it off the network beyond
 * loopback (its own update, sync and metrics connections), as the machines running the suite
 * have no other network. `args`: more of Chromium's flags (a fake microphone's).
 */
export function launchChromium(args: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `the browser suites need Chromium at ${CHROMIUM} (Debian: apt-get install chromium; CHROMIUM=path for another)`,
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  });
}

/** A web site on loopback serving one empty page: its pages run the tests' scripts from its origin. */
export class Site {
  private readonly server: Server = createServer((_req, res) =>
    res
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>site</title>'),
  );
  origin = '';

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.origin;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** A page of this site in a fresh browser context (no cache or cookies of other tests). */
  async page(browser: Browser): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${this.origin}/`);
    return page;
  }
}

/** A frame the page sends: JSON text, text as it is (a malformed frame), or `pcmBytes` of PCM. */
export type Sent = Record<string, unknown> | { raw: string } | { pcmBytes: number };

/** What the page's socket saw: the engine's JSON events, `{binary: n}` for binary frames. */
export interface Conversation {
  opened: boolean;
  events: Record<string, any>[];
  /** The close code, when the socket closed before the awaited event. */
  closed?: number;
}

/**
 * Opens the browser's own WebSocket to `url` from `page`, sends `sent` once the engine's
 * `session` event has come, and gathers what arrives until an event of type `until` (or the
 * socket closes, or 10 s pass).
 */
export function converse(page: Page, url: string, sent: Sent[], until: string) {
  return page.evaluate(
    ({ url, sent, until }) =>
      new Promise<Conversation>((resolve) => {
        const seen: Conversation = { opened: false, events: [] };
        const ws = new WebSocket(url);
        ws.binaryType = 'arraybuffer';
        const done = () => {
          clearTimeout(timer);
          ws.onclose = null;
          ws.close();
          resolve(seen);
        };
        const timer = setTimeout(done, 10000);
        ws.onopen = () => (seen.opened = true);
        ws.onclose = (e) => {
          seen.closed = e.code;
          done();
        };
        ws.onmessage = (e) => {
          if (typeof e.data !== 'string')
            return void seen.events.push({ binary: (e.data as ArrayBuffer).byteLength });
          const event = JSON.parse(e.data);
          seen.events.push(event);
          if (event.type === 'session')
            for (const frame of sent) {
              if ('raw' in frame) ws.send(frame.raw as string);
              // A microphone's PCM as a page holds it: 16-bit samples, sent as an ArrayBuffer.
              else if ('pcmBytes' in frame)
                ws.send(new Int16Array((frame.pcmBytes as number) / 2).fill(1200).buffer);
              else ws.send(JSON.stringify(frame));
            }
          if (event.type === until) done();
        };
      }),
    { url, sent, until },
  );
}

/**
 * Chromium whose microphone plays `parts` once (PCM s16le 16 kHz mono; a number: that many
 * seconds of silence), its permission granted.
 */
export function chromiumHearing(...parts: (Buffer | number)[]): Promise<Browser> {
  const pcm = Buffer.concat(
    parts.map((p) => (typeof p === 'number' ? Buffer.alloc(p * 32000) : p)),
  );
  const mic = join(mkdtempSync(join(tmpdir(), 'mic-')), 'mic.wav');
  writeFileSync(mic, wav(pcm));
  return launchChromium([
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${mic}%noloop`,
  ]);
}

/** `pcm` (s16le, 16 kHz, mono) as a WAV file: what Chromium's fake microphone plays. */
export const wav = (pcm: Buffer): Buffer => wavOf(pcm, 16_000);
