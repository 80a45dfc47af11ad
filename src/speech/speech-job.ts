/** One sentence of a turn's speech (TurnSpeech), and its synthesis. Pure: no Nest import. */
import type { SpeechOutcome } from '../metrics/speech-metrics.js';
import type { SpeakOptions } from './speak-options.js';
import type { TtsEngine } from './tts-engine.js';

/** A sentence to say: its text, and its audio as synthesis gives it. */
export interface Job {
  sentence: string;
  /** Not text of the answer (a call's confirmation question): not reported as spoken. */
  aside?: true;
  /**
   * Said to the user of the calls `asks` waiting for them (a question, the hold phrase): not said
   * on once they are all answered.
   */
  asks?: readonly string[];
  /** The question of call `question` (an approval's prompt, a value asked for): see QuestionRepeats. */
  question?: string;
  /**
   * Not said (on): the wait phrase once the answer's text has come before its audio began, a
   * question once answered or asked again.
   */
  stale?: true;
  /** Ends its synthesis (see `dropJob`). */
  cancel?: () => void;
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
 * `job` is not said (on) (see `stale`): its synthesis, if running, ends too, so that a speech
 * server is not kept at a sentence no one will hear.
 */
export function dropJob(job: Job): void {
  job.stale = true;
  job.cancel?.();
}

/**
 * Synthesises `job`'s text into its chunks, waking whoever waits on it at each; `priority`: its
 * place in the answer (a shared synthesiser serves earlier sentences first).
 */
export async function synthesize(
  job: Job,
  tts: TtsEngine,
  options: Pick<SpeakOptions, 'voice' | 'language' | 'signal' | 'onSynthesized'>,
  priority: number,
): Promise<void> {
  const { voice, language, onSynthesized } = options;
  // Its own signal: aborted with the turn's, or alone when the sentence is dropped.
  const own = new AbortController();
  const cancel = () => own.abort();
  const { signal } = own;
  if (options.signal.aborted) cancel();
  else options.signal.addEventListener('abort', cancel, { once: true });
  job.cancel = cancel;
  const asked = performance.now();
  let firstAudio: number | undefined;
  let outcome: SpeechOutcome = 'ok';
  try {
    for await (const chunk of tts.synthesize({
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
    options.signal.removeEventListener('abort', cancel);
    onSynthesized?.(signal.aborted ? 'cancelled' : outcome, firstAudio, {
      startedAt: asked,
      endedAt: performance.now(),
      characters: job.text.length,
    });
    job.done = true;
    job.wake?.();
  }
}
