/**
 * A question said to a voice caller (an approval's prompt, a call's question) and left
 * unanswered: said again `everyMs` (SPEECH_QUESTION_REPEAT_MS) after it was heard, and again each
 * time as long, up to `most` times (SPEECH_QUESTION_REPEATS), as an IVR's menu is when no key comes — until it is
 * answered, its call ends, the user asks it to wait ("one moment") or the turn ends. Pure: no
 * Nest import.
 */
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';

/** SPEECH_QUESTION_REPEATS' default: how many times a question is said again unasked. */
export const MAX_REPEATS = 3;

export class QuestionRepeats {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Calls the user asked to wait: their questions are not said again unasked. */
  private readonly held = new Set<string>();
  /** How many times each call's question was said again unasked since the user last asked. */
  private readonly repeated = new Map<string, number>();
  /** Each call's question, in its own words (not the apology an unclear answer put before it). */
  private readonly questions = new Map<string, string>();

  constructor(
    private readonly everyMs: number,
    /** How many times a question is said again unasked (a caller asking to hear it counts anew). */
    private readonly most: number,
    /** Says question `text` of call `id` again. */
    private readonly say: (id: string, text: string) => void,
  ) {}

  /** Call `id`'s question was said: the client will have played it `inMs` from now. */
  said(id: string, inMs: number): void {
    const repeated = this.repeated.get(id) ?? 0;
    const text = this.questions.get(id);
    if (this.everyMs <= 0 || this.held.has(id) || repeated >= this.most || !text) return;
    this.stop(id);
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        this.repeated.set(id, repeated + 1);
        this.say(id, text);
      },
      Math.max(0, inMs) + this.everyMs,
    );
    this.timers.set(id, timer);
  }

  /** The turn's events: a call's result, or the user's asking it to wait, ends its repeats. */
  on(event: TurnEvent): void {
    if (event.type === 'tool_result') this.stop(event.id);
    else if (event.type === 'tool_held')
      for (const id of event.ids) {
        this.held.add(id);
        this.stop(id);
      }
  }

  /**
   * Call `id`'s question, `question` in its own words, is asked (again, at the user's asking): its
   * repeats count anew.
   */
  asked(id: string, question: string): void {
    this.stop(id);
    this.repeated.delete(id);
    this.questions.set(id, question);
  }

  /** No repeat of call `id`'s question (answered, or asked again meanwhile). */
  stop(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  /** The turn is over: no repeat at all. */
  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
