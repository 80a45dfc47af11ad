import { Counter, Histogram, type Registry } from 'prom-client';

/** Seconds: what a caller hears as the agent's reaction lies between 100 ms and a few seconds. */
const VOICE_BUCKETS = [0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 5, 10];

export type SpeechOutcome = 'ok' | 'failed' | 'cancelled';

/** What became of a question said to the user: cut by its answer, or said again unanswered. */
export type QuestionSaid = 'cut' | 'repeated';

/**
 * A voice agent's latencies, in the engine's registry: how long a caller waits for the answer's
 * first sound, and what transcription and synthesis take of it. Pure: no Nest import.
 */
export class SpeechMetrics {
  private readonly response: Histogram;
  private readonly sttSeconds: Histogram<'provider'>;
  private readonly ttsFirstAudio: Histogram<'provider'>;
  private readonly requests: Counter<'kind' | 'provider' | 'outcome'>;
  private readonly cacheHits: Counter<'provider'>;
  private readonly fallbacks: Counter;
  private readonly sttFallbacks: Counter;
  private readonly questions: Counter<'event'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.response = new Histogram({
      name: 'agent_engine_voice_response_seconds',
      help: "From the end of the user's turn (audio_end, or user_text in a voice session) to the answer's first audio sent: the agent's reaction time as a caller hears it, transcription, tools and synthesis included",
      buckets: VOICE_BUCKETS,
      registers,
    });
    this.sttSeconds = new Histogram({
      name: 'agent_engine_stt_duration_seconds',
      help: 'Transcription of one utterance, by provider',
      labelNames: ['provider'],
      buckets: VOICE_BUCKETS,
      registers,
    });
    this.ttsFirstAudio = new Histogram({
      name: 'agent_engine_tts_first_audio_seconds',
      help: 'From asking for the synthesis of one sentence to its first audio, by provider',
      labelNames: ['provider'],
      buckets: VOICE_BUCKETS,
      registers,
    });
    this.requests = new Counter({
      name: 'agent_engine_speech_requests_total',
      help: 'Transcriptions (kind="stt") and sentence syntheses (kind="tts") by provider and outcome (ok, failed, cancelled)',
      labelNames: ['kind', 'provider', 'outcome'],
      registers,
    });
    this.cacheHits = new Counter({
      name: 'agent_engine_tts_cache_hits_total',
      help: 'Sentences said from the speech kept of earlier syntheses (TTS_CACHE_MB), with no request to the TTS engine, by provider',
      labelNames: ['provider'],
      registers,
    });
    this.fallbacks = new Counter({
      name: 'agent_engine_tts_fallback_sentences_total',
      help: 'Sentences said by the bundled eSpeak NG because the TTS server failed (TTS_FALLBACK=espeak)',
      registers,
    });
    this.sttFallbacks = new Counter({
      name: 'agent_engine_stt_fallback_utterances_total',
      help: 'Utterances transcribed by STT_FALLBACK_BASE_URL because the speech-to-text server failed',
      registers,
    });
    this.questions = new Counter({
      name: 'agent_engine_spoken_questions_total',
      help: 'Questions said to a voice caller (approvals, values asked for) cut short by their answer (event="cut"), or said again unanswered (event="repeated", SPEECH_QUESTION_REPEAT_MS)',
      labelNames: ['event'],
      registers,
    });
  }

  /** A question said to the user was cut by its answer, or said again unanswered. */
  questionSaid(event: QuestionSaid): void {
    this.questions.inc({ event });
  }

  /** An utterance was transcribed by the fallback server. */
  sttFellBack(): void {
    this.sttFallbacks.inc();
  }

  /** A sentence was said by the fallback engine. */
  fellBack(): void {
    this.fallbacks.inc();
  }

  /** A sentence was said from the cache. */
  cacheHit(provider: string): void {
    this.cacheHits.inc({ provider });
  }

  /** The answer's first audio went out `seconds` after the user's turn ended. */
  responded(seconds: number): void {
    this.response.observe(seconds);
  }

  transcribed(provider: string, outcome: SpeechOutcome, seconds: number): void {
    this.requests.inc({ kind: 'stt', provider, outcome });
    if (outcome === 'ok') this.sttSeconds.observe({ provider }, seconds);
  }

  /** One sentence's synthesis ended; `firstAudioSeconds` when it gave any audio. */
  synthesized(provider: string, outcome: SpeechOutcome, firstAudioSeconds?: number): void {
    this.requests.inc({ kind: 'tts', provider, outcome });
    if (firstAudioSeconds !== undefined)
      this.ttsFirstAudio.observe({ provider }, firstAudioSeconds);
  }
}
