import { Observable, type Subscriber } from 'rxjs';
import { AudioPacer } from './audio-pacer.js';
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import { SentenceSegmenter } from './sentence-segmenter.js';
import { CodeFences, speakable } from './speech-text.js';
import { spellCodes } from './spelled-codes.js';
import { AnswerWait, ToolStill, ToolWait } from './tool-wait.js';
import type { TtsEngine } from './tts-engine.js';
import type { SpeakOptions, SpeechEvent } from './speak-options.js';
import { asksOf, toUser } from './to-user.js';
import { MAX_REPEATS, QuestionRepeats } from './question-repeats.js';
import { dropJob, synthesize, type Job } from './speech-job.js';

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
  private wakeEmitter: (() => void) | undefined;
  private readonly pacer: AudioPacer;
  private readonly toolWait: ToolWait;
  private readonly toolStill: ToolStill;
  private readonly answerWait: AnswerWait;
  /** The wait and still phrases queued, until the answer's text comes. */
  private waitJobs: Job[] = [];
  /** Unanswered questions said again (SPEECH_QUESTION_REPEAT_MS). */
  private readonly repeats: QuestionRepeats;
  /** The calls whose question the user has answered (see `answered`). */
  private readonly answeredIds = new Set<string>();
  /** The jobs from the user's last answer on (see `answered`). */
  private saidFrom = 0;

  constructor(
    private readonly turn$: Observable<TurnEvent>,
    private readonly tts: TtsEngine,
    private readonly options: SpeakOptions,
    private readonly out: Subscriber<SpeechEvent>,
  ) {
    this.segmenter = new SentenceSegmenter(options.maxSentenceChars, options.firstClauseChars);
    const chunkBytes = options.chunkBytes ?? Math.max(2, Math.round(tts.sampleRate * 0.2) * 2);
    this.pacer = new AudioPacer(
      tts.sampleRate,
      chunkBytes,
      options.leadMs,
      options.signal,
      (audio) => out.next(audio),
      options.onFirstAudio,
    );
    // Nothing said in the turn, or since the user last answered a call's question.
    const silent = () => this.jobs.every((job, i) => i < this.saidFrom || job.text === '');
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
    const { questionRepeatMs = 0, questionRepeats = MAX_REPEATS } = options;
    this.repeats = new QuestionRepeats(questionRepeatMs, questionRepeats, (id, text) => {
      options.onQuestion?.('repeated');
      // "Sorry, I didn't hear an answer." first, as an IVR says before its menu again.
      this.ask(id, text, options.questionRepeatPhrase);
    });
    const quiet = () => this.emitIndex >= this.jobs.length;
    // (Its phrase read only when said: of several, each reading is the next in turn.)
    this.toolStill = new ToolStill(options.toolStillMs ?? 0, quiet, () =>
      this.waitFor(options.toolStillPhrase ?? ''),
    );
  }

  /** No wait or still phrase from now on: the turn's text is over, or the turn cut short. */
  private stopWaits(): void {
    this.answerWait.stop();
    this.toolWait.stop();
    this.toolStill.stop();
    this.repeats.close();
  }

  /** Says a phrase for the calls' wait, unless the answer's text comes before it begins. */
  private waitFor(phrase: string): void {
    if (phrase === '') return;
    this.add([phrase], true);
    this.waitJobs.push(this.jobs.at(-1)!);
  }

  start(): () => void {
    const subscription = this.turn$.subscribe({
      next: (event) => {
        this.answerWait.stop();
        if (event.type === 'assistant_delta') {
          // The answer is here before the wait phrase could be said (the caller was being heard
          // out, or its synthesis was slow): "One moment." would now only delay it.
          if (this.waitJobs.length > 0) {
            for (const job of this.waitJobs) if (!job.begun) dropJob(job);
            this.waitJobs = [];
          }
          this.add(this.segmenter.push(event.text));
        }
        // The text before a call is said now, not after the tools ("Let me check" + results).
        else if (event.type === 'tool_call') this.add(this.segmenter.flush());
        else this.tell(event);
        this.toolWait.on(event);
        this.toolStill.on(event);
        this.repeats.on(event);
      },
      complete: () => {
        this.stopWaits();
        this.add(this.segmenter.flush());
        this.inputDone = true;
        this.poke();
      },
    });
    const answers = this.options.answered?.subscribe((id) => this.answered(id));
    const onAbort = () => {
      this.stopWaits();
      this.poke();
    };
    this.options.signal.addEventListener('abort', onAbort, { once: true });
    void this.emitLoop().finally(() => {
      this.stopWaits();
      this.options.signal.removeEventListener('abort', onAbort);
      subscription.unsubscribe();
      answers?.unsubscribe();
      this.out.next({ type: 'audio_end' });
      this.out.complete();
    });
    return () => subscription.unsubscribe();
  }

  /** Sentences to say, in order; `aside`: not the answer's text; `asks`: see Job. */
  private add(sentences: string[], aside = false, asks?: readonly string[]): void {
    for (const sentence of sentences) {
      const plain = aside ? speakable(sentence) : speakable(this.fences.outside(sentence));
      const text = this.options.spellCodes ? spellCodes(plain) : plain;
      const job: Job = { sentence, text, chunks: [], done: text === '', started: false };
      this.jobs.push(aside ? { ...job, aside, ...(asks !== undefined && { asks }) } : job);
    }
    this.startJobs();
    this.poke();
  }

  /**
   * Says what is said to the user of the calls waiting for them (toUser). A question asked again
   * ("sorry?", the repeat key) starts over: what was left of its last asking is not said first.
   */
  private tell(event: TurnEvent): void {
    const told = toUser(event, this.options);
    if (!told?.said) return;
    if (event.type === 'tool_confirm' || event.type === 'tool_question') {
      this.repeats.asked(event.id, told.question ?? told.said);
      this.ask(event.id, told.said);
    } else this.add([told.said], true, asksOf(event));
  }

  /** Says call `id`'s question `text` anew, after `before` if any; not what was left of it. */
  private ask(id: string, text: string, before?: string): void {
    this.drop(this.jobs.filter((job) => job.asks?.length === 1 && job.asks[0] === id));
    this.add(before ? [before, text] : [text], true, [id]);
    this.jobs.at(-1)!.question = id;
  }

  /**
   * The user has answered call `id`'s question (approved or refused it, given a value): what is
   * left of what was said to them of it (its question, the hold phrase when no other call waits)
   * is not said, and when the client is still playing it, it is told to drop what it has not
   * played (`audio_clear`): a key pressed at "Pay 120 euros? Press 1 to confirm…" cuts the prompt
   * short as an IVR's menu does.
   */
  private answered(id: string): void {
    this.answeredIds.add(id);
    const asked = this.jobs.filter(
      (job) => job.asks?.includes(id) && job.asks.every((call) => this.answeredIds.has(call)),
    );
    // Its latest asking not yet all sent, or still playing: the answer cut it short.
    const question = asked.findLast((job) => job.question !== undefined);
    if (question && !question.error && !this.heard(question)) this.options.onQuestion?.('cut');
    this.drop(asked);
    this.repeats.stop(id);
    // The calls at work again: their wait, and what is said of it, counts from the answer.
    this.saidFrom = this.jobs.length;
    this.toolWait.answered(id);
    this.toolStill.answered(id);
  }

  /** Whether `job` was all sent and the client has played it. */
  private heard(job: Job): boolean {
    return this.jobs.indexOf(job) < this.emitIndex && this.nowPlaying() !== job;
  }

  /** The sentence whose audio the client is playing (the last sent), if it plays any. */
  private nowPlaying(): Job | undefined {
    return this.pacer.playing ? this.jobs.findLast((job) => job.begun) : undefined;
  }

  /** `jobs` are not said (on); the client drops what it has not played when it plays them. */
  private drop(jobs: Job[]): void {
    if (jobs.length === 0) return;
    for (const job of jobs) dropJob(job);
    const playing = this.nowPlaying();
    if (playing && jobs.includes(playing)) {
      this.pacer.cleared();
      this.out.next({ type: 'audio_clear' });
    }
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
      if (job.started || job.done || job.stale) continue;
      job.started = true;
      void synthesize(job, this.tts, this.options, i);
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
          await this.pacer.send(chunk, () => job.stale === true);
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
      if (!job.error && !job.aside) this.options.onSpoken?.(job.sentence, this.pacer.playedUntil);
      if (!job.error && job.question !== undefined) {
        const heardIn = this.pacer.playedUntil - performance.now();
        this.repeats.said(job.question, heardIn);
      }
      this.emitIndex += 1;
    }
  }
}
