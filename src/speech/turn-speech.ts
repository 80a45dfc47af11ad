import { setImmediate as setImmediatePromise, setTimeout as sleep } from 'node:timers/promises';
import { Observable, type Subscriber } from 'rxjs';
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import { SentenceSegmenter } from './sentence-segmenter.js';
import { CodeFences, speakable } from './speech-text.js';
import { spellCodes } from './spelled-codes.js';
import { AnswerWait, ToolStill, ToolWait } from './tool-wait.js';
import type { TtsEngine } from './tts-engine.js';
import type { SpeechOutcome } from '../metrics/speech-metrics.js';
import type { SpeakOptions, SpeechEvent } from './speak-options.js';
import { spokenQuestion } from '../tools/spoken-question.js';

interface Job {
  sentence: string;
  /** Not text of the answer (a call's confirmation question): not reported as spoken. */
  aside?: true;
  /** The wait phrase, not said once the answer's text has come before its audio began. */
  stale?: true;
  /** Its audio has begun to be sent. */
  begun?: true;
  text: string;
  chunks: Buffer[];
  done: boolean;
  error?: Error;
  started: boolean;
  wake?: () => void;
}

/**
 * Speaks one turn: visible text (`assistant_delta` only — never markup or reasoning) →
 * sentences → clean-up → synthesis. Sentence n+1 is synthesised while n is sent; order is
 * always kept. Ends with `audio_end`, also when the turn is interrupted (queued audio dropped).
 */
export function speakTurn(
  turn$: Observable<TurnEvent>,
  tts: TtsEngine,
  options: SpeakOptions,
): Observable<SpeechEvent> {
  return new Observable<SpeechEvent>((out) => new TurnSpeech(turn$, tts, options, out).start());
}

class TurnSpeech {
  private readonly segmenter: SentenceSegmenter;
  private readonly jobs: Job[] = [];
  /** Code fences open across sentences: their content is not spoken. */
  private readonly fences = new CodeFences();
  private inputDone = false;
  private emitIndex = 0;
  private seq = 0;
  private wakeEmitter: (() => void) | undefined;
  private readonly chunkBytes: number;
  private readonly toolWait: ToolWait;
  private readonly toolStill: ToolStill;
  private readonly answerWait: AnswerWait;
  /** The wait and still phrases queued, until the answer's text comes. */
  private waitJobs: Job[] = [];

  constructor(
    private readonly turn$: Observable<TurnEvent>,
    private readonly tts: TtsEngine,
    private readonly options: SpeakOptions,
    private readonly out: Subscriber<SpeechEvent>,
  ) {
    this.segmenter = new SentenceSegmenter(options.maxSentenceChars);
    this.chunkBytes = options.chunkBytes ?? Math.max(2, Math.round(tts.sampleRate * 0.2) * 2);
    const silent = () => this.jobs.every((job) => job.text === '');
    this.toolWait = new ToolWait(options.toolWaitMs ?? 0, silent, (tool) => {
      // Text the model wrote after its calls, held until its sentence was sure to have ended:
      // nothing followed, so it has. Said now, it is what the caller hears while waiting.
      this.add(this.segmenter.flush());
      if (!silent()) return;
      const phrase = options.toolWaitPhraseOf?.(tool) || options.toolWaitPhrase || '';
      this.waitFor(phrase);
    });
    // The model says nothing for long (still reasoning): the caller hears the same wait phrase.
    const since = options.since ?? performance.now();
    this.answerWait = new AnswerWait(options.answerWaitMs ?? 0, since, () => {
      if (silent()) this.waitFor(options.toolWaitPhrase ?? '');
    });
    const quiet = () => this.emitIndex >= this.jobs.length;
    const stillMs = options.toolStillPhrase ? (options.toolStillMs ?? 0) : 0;
    this.toolStill = new ToolStill(stillMs, quiet, () =>
      this.waitFor(options.toolStillPhrase ?? ''),
    );
  }

  /** No wait or still phrase from now on: the turn's text is over, or the turn cut short. */
  private stopWaits(): void {
    this.answerWait.stop();
    this.toolWait.stop();
    this.toolStill.stop();
  }

  /** Says a phrase for the calls' wait, unless the answer's text comes before it begins. */
  private waitFor(phrase: string): void {
    if (phrase === '') return;
    this.add([phrase], true);
    this.waitJobs.push(this.jobs.at(-1)!);
  }

  /**
   * What is said to the user, after the text so far, of a call waiting for them: its question
   * (and a choice's options), or the answer to their asking it to wait, or whether the agent is
   * there.
   */
  private toUser(event: TurnEvent): string | undefined {
    // Read when needed: each is in the language of the moment (a handoff may change it).
    const { options } = this;
    if (event.type === 'tool_confirm') return event.prompt || options.confirmPhrase;
    if (event.type === 'tool_held') return options.holdPhrase;
    if (event.type === 'tool_still_running') return options.stillHerePhrase;
    if (event.type !== 'tool_question') return undefined;
    const again = event.unclear !== undefined;
    const question = spokenQuestion(event.prompt, event.answer, options.language, again);
    const sorry = again ? options.unclearPhrase : undefined;
    return sorry ? `${sorry} ${question}` : question;
  }

  start(): () => void {
    const subscription = this.turn$.subscribe({
      next: (event) => {
        this.answerWait.stop();
        if (event.type === 'assistant_delta') {
          // The answer is here before the wait phrase could be said (the caller was being heard
          // out, or its synthesis was slow): "One moment." would now only delay it.
          if (this.waitJobs.length > 0) {
            for (const job of this.waitJobs) if (!job.begun) job.stale = true;
            this.waitJobs = [];
          }
          this.add(this.segmenter.push(event.text));
        }
        // The text before a call is said now, not after the tools ("Let me check" + results).
        else if (event.type === 'tool_call') this.add(this.segmenter.flush());
        else {
          const asked = this.toUser(event);
          if (asked) this.add([asked], true);
        }
        this.toolWait.on(event);
        this.toolStill.on(event);
      },
      complete: () => {
        this.stopWaits();
        this.add(this.segmenter.flush());
        this.inputDone = true;
        this.poke();
      },
    });
    const onAbort = () => {
      this.stopWaits();
      this.poke();
    };
    this.options.signal.addEventListener('abort', onAbort, { once: true });
    void this.emitLoop().finally(() => {
      this.stopWaits();
      this.options.signal.removeEventListener('abort', onAbort);
      subscription.unsubscribe();
      this.out.next({ type: 'audio_end' });
      this.out.complete();
    });
    return () => subscription.unsubscribe();
  }

  private add(sentences: string[], aside = false): void {
    for (const sentence of sentences) {
      const plain = aside ? speakable(sentence) : speakable(this.fences.outside(sentence));
      const text = this.options.spellCodes ? spellCodes(plain) : plain;
      const job: Job = { sentence, text, chunks: [], done: text === '', started: false };
      this.jobs.push(aside ? { ...job, aside } : job);
    }
    this.startJobs();
    this.poke();
  }

  private poke(): void {
    const wake = this.wakeEmitter;
    this.wakeEmitter = undefined;
    wake?.();
    for (const job of this.jobs) job.wake?.();
  }

  /** Synthesis runs for the sentence being sent and the next one. */
  private startJobs(): void {
    for (let i = this.emitIndex; i < Math.min(this.jobs.length, this.emitIndex + 2); i++) {
      const job = this.jobs[i]!;
      if (job.started || job.done) continue;
      job.started = true;
      void this.synthesize(job);
    }
  }

  private async synthesize(job: Job): Promise<void> {
    const { voice, language, signal, onSynthesized } = this.options;
    const asked = performance.now();
    let firstAudio: number | undefined;
    let outcome: SpeechOutcome = 'ok';
    try {
      const priority = this.jobs.indexOf(job);
      for await (const chunk of this.tts.synthesize({
        text: job.text,
        voice,
        language,
        signal,
        priority,
      })) {
        if (signal.aborted) break;
        firstAudio ??= (performance.now() - asked) / 1000;
        job.chunks.push(chunk);
        job.wake?.();
      }
    } catch (error) {
      if (!signal.aborted) job.error = error as Error;
      outcome = 'failed';
    } finally {
      onSynthesized?.(signal.aborted ? 'cancelled' : outcome, firstAudio, {
        startedAt: asked,
        endedAt: performance.now(),
        characters: job.text.length,
      });
      job.done = true;
      job.wake?.();
    }
  }

  private wait(job?: Job): Promise<void> {
    return new Promise<void>((resolve) => {
      if (job) job.wake = resolve;
      else this.wakeEmitter = resolve;
    });
  }

  private async emitLoop(): Promise<void> {
    const { signal } = this.options;
    let reported = false;
    while (!signal.aborted) {
      const job = this.jobs[this.emitIndex];
      if (!job) {
        if (this.inputDone) return;
        await this.wait();
        continue;
      }
      this.startJobs();
      // The caller, heard out, is still speaking: nothing is said over them until their words
      // are judged (an "okay" lets the answer go on, more cuts the turn short).
      const judging = this.options.judging?.();
      if (judging) {
        await Promise.race([judging, this.wait()]);
        continue;
      }
      while (!signal.aborted && !job.stale && (job.chunks.length > 0 || !job.done)) {
        const chunk = job.chunks.shift();
        if (chunk) {
          job.begun = true;
          await this.send(chunk);
        } else await this.wait(job);
      }
      if (signal.aborted) return;
      if (job.stale) {
        this.emitIndex += 1;
        continue;
      }
      if (job.error && !reported) {
        reported = true;
        this.out.next({
          type: 'error',
          code: 'tts_failed',
          message: `speech synthesis failed: ${job.error.message}`,
        });
      }
      if (!job.error && !job.aside) this.options.onSpoken?.(job.sentence, this.playedUntil);
      this.emitIndex += 1;
    }
  }

  private sentMs = 0;
  private startedAt = 0;
  /** When the client will have played all the audio sent so far (`performance.now()`). */
  private playedUntil = 0;

  private async send(chunk: Buffer): Promise<void> {
    const { signal, leadMs } = this.options;
    for (let at = 0; at < chunk.length && !signal.aborted; at += this.chunkBytes) {
      if (this.startedAt === 0) this.startedAt = performance.now();
      const ahead = this.sentMs - (performance.now() - this.startedAt);
      // Ahead of playback: wait. Otherwise (the first lead, or behind after the process was
      // stalled) let the event loop read first, so that a barge-in already received stops the
      // audio here rather than after a burst of everything due.
      if (leadMs !== undefined && ahead > leadMs)
        await sleep(ahead - leadMs, undefined, { signal }).catch(() => undefined);
      else await setImmediatePromise();
      if (signal.aborted) return;
      const data = chunk.subarray(at, at + this.chunkBytes);
      if (this.seq === 0) this.options.onFirstAudio?.();
      const ms = (data.length / 2 / this.tts.sampleRate) * 1000;
      this.sentMs += ms;
      this.playedUntil = Math.max(this.playedUntil, performance.now()) + ms;
      this.out.next({
        type: 'audio',
        seq: this.seq++,
        format: 'pcm_s16le',
        sample_rate: this.tts.sampleRate,
        channels: 1,
        data,
      });
    }
  }
}
