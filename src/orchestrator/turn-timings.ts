/**
 * What one turn took, for a client that asks (`session.update`'s `timings`): where the time
 * between the end of the user's turn and the answer went — transcription, the LLM, the tools,
 * synthesis — in whole milliseconds. `assistant_end` carries the text's, `audio_end` the speech's
 * (it may come later). Pure: no Nest import.
 */

/** The answer's text: on `assistant_end`. */
export interface TextTimings {
  /** The transcription of the utterance the turn answers (a spoken turn). */
  stt_ms?: number;
  /** From the turn's first completion request to the first text, reasoning or call it gave. */
  llm_first_ms?: number;
  /** The turn's completion requests, each from its sending to its end, summed. */
  llm_ms: number;
  /** How many completion requests the turn made (a round each; a fallback's counts). */
  llm_requests: number;
  /**
   * Each completion request, in order: from its sending to its first text, reasoning or call
   * (`first_ms`; absent when none came) and to its end (`ms`). Absent with no request.
   */
  llm_rounds?: LlmRound[];
  /**
   * How long the turn waited for its calls once their round had been read (approvals too);
   * absent when it made none.
   */
  tools_ms?: number;
  /** From the end of the user's turn to the first `assistant_delta`. */
  first_text_ms?: number;
  /** From the end of the user's turn to `assistant_end`. */
  total_ms: number;
}

/** One completion request of a turn (`llm_rounds`). */
export interface LlmRound {
  first_ms?: number;
  ms: number;
}

/** The answer's speech: on `audio_end`. */
export interface AudioTimings {
  /** From asking for the turn's first sentence to be synthesised to its first audio. */
  tts_first_ms?: number;
  /** From the end of the user's turn to the first `audio` sent (a wait phrase's too). */
  first_audio_ms?: number;
  /** From the end of the user's turn to `audio_end`. */
  total_ms: number;
}

/** One completion request being timed: its first event, and its end. */
export interface RequestClock {
  seen(): void;
  ended(): void;
}

const ms = (from: number, to: number) => Math.max(0, Math.round(to - from));

export class TurnTimings {
  /** Each completion request: when sent, its first event's wait (ms), how long it took to its end. */
  private readonly rounds: { asked: number; first?: number; took?: number }[] = [];
  private tools: number | undefined;
  private firstText: number | undefined;
  private firstAudio: number | undefined;
  /** The synthesis asked for first, of those that gave audio: when asked, its first audio's wait. */
  private firstSynthesis: { asked: number; firstAudioMs: number } | undefined;

  /**
   * `since`: when the user's turn ended (`performance.now()`); `heard`: the transcription of a
   * spoken turn's utterance.
   */
  constructor(
    private readonly since: number,
    private readonly heard?: { startedAt: number; endedAt: number },
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A completion request is sent. */
  request(): RequestClock {
    const asked = this.now();
    const round: (typeof this.rounds)[number] = { asked };
    this.rounds.push(round);
    return {
      seen: () => {
        if (round.first !== undefined) return;
        round.first = ms(asked, this.now());
      },
      ended: () => {
        round.took ??= this.now() - asked;
      },
    };
  }

  /** The turn waited for its round's calls from `from` until now. */
  toolsWaited(from: number): void {
    this.tools = (this.tools ?? 0) + this.now() - from;
  }

  /** An event the client is sent (text or speech). */
  sent(type: string): void {
    if (type === 'assistant_delta') this.firstText ??= this.now();
    else if (type === 'audio') this.firstAudio ??= this.now();
  }

  /** A sentence's synthesis asked for at `asked` (`performance.now()`) gave its first audio. */
  synthesized(asked: number, firstAudioSeconds: number): void {
    if (this.firstSynthesis && this.firstSynthesis.asked <= asked) return;
    this.firstSynthesis = { asked, firstAudioMs: Math.round(firstAudioSeconds * 1000) };
  }

  /** The text's timings, at its end (now). */
  text(): TextTimings {
    const { heard, rounds } = this;
    const llmFirst = rounds.find((r) => r.first !== undefined)?.first;
    return {
      ...(heard && { stt_ms: ms(heard.startedAt, heard.endedAt) }),
      ...(llmFirst !== undefined && { llm_first_ms: llmFirst }),
      // The requests that ended; one still running as the text ends (cut) is in llm_rounds only.
      llm_ms: Math.round(rounds.reduce((sum, r) => sum + (r.took ?? 0), 0)),
      llm_requests: rounds.length,
      ...(rounds.length > 0 && {
        llm_rounds: rounds.map(({ asked, first, took }) => ({
          ...(first !== undefined && { first_ms: first }),
          // One still running as the text ends (cut): until now.
          ms: took === undefined ? ms(asked, this.now()) : Math.round(took),
        })),
      }),
      ...(this.tools !== undefined && { tools_ms: Math.round(this.tools) }),
      ...(this.firstText !== undefined && { first_text_ms: ms(this.since, this.firstText) }),
      total_ms: ms(this.since, this.now()),
    };
  }

  /** The speech's timings, at its end (now). */
  audio(): AudioTimings {
    return {
      ...(this.firstSynthesis && { tts_first_ms: this.firstSynthesis.firstAudioMs }),
      ...(this.firstAudio !== undefined && { first_audio_ms: ms(this.since, this.firstAudio) }),
      total_ms: ms(this.since, this.now()),
    };
  }
}
