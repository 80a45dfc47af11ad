import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { TtsEngine, type SynthesisRequest } from './tts-engine.js';

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
  return VOICES[lang] ?? VOICES[lang.split('-')[0]!] ?? lang;
}

interface Pending {
  resolve: (pcm: Buffer) => void;
  reject: (error: Error) => void;
}

/**
 * The embedded default: eSpeak NG compiled to WASM (npm `espeak-ng`, GPL-3.0), run in a
 * worker thread so synthesis never blocks the event loop. The WASM module is compiled once,
 * when the worker starts, and reused for every sentence.
 */
@Injectable()
export class EspeakTtsEngine extends TtsEngine implements OnModuleDestroy {
  readonly provider = 'espeak' as const;
  readonly sampleRate = 22050;
  private readonly logger = new Logger(EspeakTtsEngine.name);
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** How many times a worker (and so the WASM module) was started. */
  workerStarts = 0;

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_URL);
    this.workerStarts += 1;
    worker.unref();
    worker.on('message', (m: { id?: number; pcm?: Uint8Array; error?: string }) => {
      if (m.id === undefined) return;
      const job = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (!job) return;
      if (m.error !== undefined) job.reject(new Error(m.error));
      else job.resolve(Buffer.from(m.pcm!.buffer, m.pcm!.byteOffset, m.pcm!.byteLength));
    });
    worker.on('error', (error) => {
      this.logger.error(`espeak worker failed: ${error.message}`);
      for (const job of this.pending.values()) job.reject(error);
      this.pending.clear();
      this.worker = undefined;
    });
    this.worker = worker;
    return worker;
  }

  /** Starts the worker and compiles the WASM module ahead of the first sentence. */
  warmUp(): void {
    this.ensureWorker();
  }

  async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
    if (request.signal.aborted) return;
    const id = this.nextId++;
    const pcm = await new Promise<Buffer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ensureWorker().postMessage({
        id,
        text: request.text,
        voice: espeakVoice(request.language, request.voice),
      });
    });
    if (!request.signal.aborted && pcm.length > 0) yield pcm;
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.terminate();
  }
}
