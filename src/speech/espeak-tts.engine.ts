import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { TtsEngine, type SynthesisRequest } from './tts-engine.js';
import { languageCode } from '../common/language-code.js';

const WORKER_URL = new URL('../../assets/espeak-worker.mjs', import.meta.url);

/** eSpeak NG voices for the languages sessions ask for; anything else is passed through. */
const VOICES: Record<string, string> = {
  en: 'en-us',
  it: 'it',
  es: 'es',
  fr: 'fr-fr',
  de: 'de',
  pt: 'pt',
};

export function espeakVoice(language: string, voice: string): string {
  if (voice) return voice;
  const lang = language.toLowerCase();
  return VOICES[lang] ?? VOICES[languageCode(lang)] ?? lang;
}

interface Job {
  id: number;
  priority: number;
  text: string;
  voice: string;
  signal: AbortSignal;
  resolve: (pcm: Buffer) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
}

/**
 * The embedded default: eSpeak NG compiled to WASM (npm `espeak-ng`, GPL-3.0), run in worker
 * threads (`TTS_ESPEAK_WORKERS`) so synthesis never blocks the event loop. Each worker compiles
 * and instantiates the module once. Waiting sentences are served by priority — a turn's first
 * sentence before later ones — so a busy engine delays the first audio of a turn the least.
 */
@Injectable()
export class EspeakTtsEngine extends TtsEngine implements OnModuleDestroy {
  readonly provider = 'espeak' as const;
  readonly sampleRate = 22050;
  private readonly logger = new Logger(EspeakTtsEngine.name);
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private nextId = 1;
  /** How many times a worker (and so the WASM module) was started. */
  workerStarts = 0;

  constructor(private readonly workers = 1) {
    super();
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(WORKER_URL) };
    this.workerStarts += 1;
    slot.worker.unref();
    slot.worker.on('message', (m: { id?: number; pcm?: Uint8Array; error?: string }) => {
      const job = slot.job;
      if (m.id === undefined || !job || job.id !== m.id) return;
      slot.job = undefined;
      if (m.error !== undefined) job.reject(new Error(m.error));
      else job.resolve(Buffer.from(m.pcm!.buffer, m.pcm!.byteOffset, m.pcm!.byteLength));
      this.dispatch();
    });
    slot.worker.on('error', (error) => {
      this.logger.error(`espeak worker failed: ${error.message}`);
      slot.job?.reject(error);
      this.slots = this.slots.map((s) => (s === slot ? this.spawn() : s));
      this.dispatch();
    });
    return slot;
  }

  /** Starts the workers (each compiles and instantiates the WASM module) ahead of the first sentence. */
  override warmUp(): void {
    while (this.slots.length < this.workers) this.slots.push(this.spawn());
  }

  private dispatch(): void {
    this.warmUp();
    for (const slot of this.slots) {
      if (slot.job) continue;
      this.queue = this.queue.filter((j) => !j.signal.aborted);
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      slot.worker.postMessage({ id: job.id, text: job.text, voice: job.voice });
    }
  }

  async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
    if (request.signal.aborted) return;
    let onAbort = () => {};
    const pcm = await new Promise<Buffer>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        priority: request.priority ?? 0,
        text: request.text,
        voice: espeakVoice(request.language, request.voice),
        signal: request.signal,
        resolve,
        reject,
      };
      // Stable insertion by priority: lower first, arrival order among equals.
      const at = this.queue.findIndex((j) => j.priority > job.priority);
      this.queue.splice(at === -1 ? this.queue.length : at, 0, job);
      onAbort = () => resolve(Buffer.alloc(0));
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.dispatch();
    }).finally(() => request.signal.removeEventListener('abort', onAbort)); // one turn, many sentences
    if (!request.signal.aborted && pcm.length > 0) yield pcm;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
