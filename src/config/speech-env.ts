/**
 * The speech settings (`SPEECH_*`, `TTS_*`, `STT_*`, `VAD_*`, a telephone line's) of the
 * environment. Pure: no Nest import.
 */
import type { Phrases } from '../common/phrases.js';
import {
  DEFAULT_CONFIRM_PHRASES,
  DEFAULT_HOLD_PHRASES,
  DEFAULT_STILL_HERE_PHRASES,
  DEFAULT_TOOL_STILL_PHRASES,
  DEFAULT_TOOL_WAIT_PHRASES,
  DEFAULT_UNCLEAR_PHRASES,
  DEFAULT_QUESTION_REPEAT_PHRASES,
  DEFAULT_ERROR_PHRASES,
} from './env-defaults.js';
import {
  bool,
  EnvError,
  isBooleanWord,
  httpUrl,
  int,
  num,
  oneOf,
  phrasePerLanguage,
  present,
  type Raw,
} from './env-values.js';
import type { LoadedClientTls } from '../common/client-tls.js';
import { LANGUAGE_CODE } from '../common/language-code.js';
import { speechClientTls } from './client-tls-env.js';
import { parseTelephony, type TelephonyEnv } from './telephony-env.js';

export interface SpeechEnv extends TelephonyEnv {
  language: string;
  maxSentenceChars: number;
  /** A first sentence is sent to synthesis at its first clause mark once this long; 0: never. */
  firstClauseChars: number;
  /** Booking numbers, phone numbers and codes read a character at a time (SPEECH_SPELL_CODES). */
  spellCodes: boolean;
  audioLeadMs: number;
  /** Further attempts of a transcription or synthesis that failed transiently (SPEECH_RETRIES). */
  retries: number;
  /** Tools running this long in a voice turn that has said nothing: a wait phrase is said. */
  toolWaitMs: number;
  /** By language code (`*`: any language); the session's language picks one. */
  toolWaitPhrases: Phrases;
  /** Nothing of a voice turn's answer (no word, no call) this long: the wait phrase is said. */
  thinkingWaitMs: number;
  /** Tools running this long and longer (again each time), nothing else being said: a phrase. */
  toolStillMs: number;
  /** By language code, as toolWaitPhrases. */
  toolStillPhrases: Phrases;
  /** A question to the user left unanswered this long after it was heard: said again (0: never). */
  questionRepeatMs: number;
  /** How many times such a question is said again unasked (a caller's asking counts anew). */
  questionRepeats: number;
  /** Said before such a question said again (not before one the user asked to hear), by language. */
  questionRepeatPhrases: Phrases;
  /**
   * Said before a question asked again (its answer did not fit), and when the speech-to-text
   * server failed on what the user said, by language code.
   */
  unclearPhrases: Phrases;
  /** Said when a voice turn failed (the LLM server, the engine), by language code. */
  errorPhrases: Phrases;
  /** Said when the user asks a waiting question or approval to wait ("one moment"), by language. */
  holdPhrases: Phrases;
  /** Said when the user asks whether the agent is there while its calls run, by language. */
  stillHerePhrases: Phrases;
  /** Asked for a call awaiting approval whose tool has no `confirm_prompt`, by language. */
  confirmPhrases: Phrases;
  tts: {
    provider: 'espeak' | 'openai' | 'none';
    baseUrl: string;
    model: string;
    voice: string;
    apiKey: string;
    sampleRate: number;
    timeoutSecs: number;
    espeakWorkers: number;
    /** The speech of sentences said again and again, kept (bytes; 0: none kept). */
    cacheBytes: number;
    /** Who says a sentence the TTS server failed (TTS_FALLBACK): the bundled eSpeak NG, or no one. */
    fallback: 'espeak' | 'none';
  };
  stt: {
    provider: 'openai' | 'none';
    baseUrl: string;
    model: string;
    apiKey: string;
    maxSeconds: number;
    timeoutSecs: number;
    /** The server tells the language it heard, and the session follows it (STT_DETECT_LANGUAGE). */
    detectLanguage: boolean;
    /** The languages the session follows (their primary codes); empty: any. */
    followLanguages: string[];
    /** A second server for the utterances the first fails (STT_FALLBACK_*). */
    /** `afterMs`: an utterance the server has not transcribed by then goes here as well; 0: never. */
    fallback?: { baseUrl: string; apiKey: string; model: string; afterMs: number };
  };
  /** Voice activity detection: the engine hears when the user starts and stops speaking. */
  vad: VadSettings;
  /** Shown to the STT and TTS servers when they ask for one (SPEECH_CLIENT_CERT_FILE); renewed in place. */
  clientTls: LoadedClientTls | undefined;
}

export interface VadSettings {
  /** Silence after speech that ends an utterance; 0: the client ends each with `audio_end`. */
  silenceMs: number;
  /** Speech needed before the user counts as speaking (a barge-in). */
  minSpeechMs: number;
  /** WebRTC VAD's aggressiveness, 0 (most speech kept) to 3 (least noise taken for speech). */
  mode: number;
  /** How long words that sound unfinished wait for the user to go on; 0: answered at once. */
  unfinishedWaitMs: number;
}

/**
 * STT_DETECT_LANGUAGE: `false`, `true` (any language), or the codes of the languages followed
 * (`en,es`: a Spanish caller's words detected as Portuguese, or Galician, leave the session as it is).
 */
function detectedLanguages(raw: Raw): { detectLanguage: boolean; followLanguages: string[] } {
  const value = present(raw, 'STT_DETECT_LANGUAGE');
  if (value === undefined || isBooleanWord(value))
    return { detectLanguage: bool(raw, 'STT_DETECT_LANGUAGE') ?? false, followLanguages: [] };
  const codes = value.split(',').map((code) => code.trim().toLowerCase());
  if (codes.some((code) => !/^[a-z]{2,3}$/.test(code)))
    throw new EnvError(
      `STT_DETECT_LANGUAGE=${JSON.stringify(value)} is invalid: expected true, false, or language codes separated by commas such as en,es`,
    );
  return { detectLanguage: true, followLanguages: codes };
}

export function parseSpeech(raw: Raw): SpeechEnv {
  const ttsUrl = httpUrl(raw, 'TTS_BASE_URL', '', ['/audio/speech']);
  const sttUrl = httpUrl(raw, 'STT_BASE_URL', '', ['/audio/transcriptions']);
  const tts = oneOf(raw, 'TTS_PROVIDER', ttsUrl ? 'openai' : 'espeak', [
    'espeak',
    'openai',
    'none',
  ] as const);
  const stt = oneOf(raw, 'STT_PROVIDER', sttUrl ? 'openai' : 'none', ['openai', 'none'] as const);
  if (tts === 'openai' && !ttsUrl)
    throw new EnvError(
      'TTS_PROVIDER=openai needs TTS_BASE_URL (an absolute http:// or https:// URL)',
    );
  if (stt === 'openai' && !sttUrl)
    throw new EnvError(
      'STT_PROVIDER=openai needs STT_BASE_URL (an absolute http:// or https:// URL)',
    );
  const language = present(raw, 'SPEECH_LANGUAGE') ?? 'en';
  if (!LANGUAGE_CODE.test(language)) {
    throw new EnvError(
      `SPEECH_LANGUAGE=${JSON.stringify(language)} is invalid: expected a language code such as en, it, es or en-us`,
    );
  }
  return {
    language,
    maxSentenceChars: int(raw, 'SPEECH_MAX_SENTENCE_CHARS', 250, 20, 5000),
    firstClauseChars: int(raw, 'SPEECH_FIRST_CLAUSE_CHARS', 0, 0, 1000),
    spellCodes: bool(raw, 'SPEECH_SPELL_CODES') ?? true,
    audioLeadMs: int(raw, 'SPEECH_AUDIO_LEAD_MS', 1000, 0, 600_000),
    retries: int(raw, 'SPEECH_RETRIES', 2, 0, 5),
    toolWaitMs: int(raw, 'SPEECH_TOOL_WAIT_MS', 2000, 0, 600_000),
    toolWaitPhrases: phrasePerLanguage(raw, 'SPEECH_TOOL_WAIT_PHRASE', DEFAULT_TOOL_WAIT_PHRASES),
    thinkingWaitMs: int(raw, 'SPEECH_THINKING_WAIT_MS', 0, 0, 600_000),
    toolStillMs: int(raw, 'SPEECH_TOOL_STILL_MS', 10_000, 0, 600_000),
    questionRepeatMs: int(raw, 'SPEECH_QUESTION_REPEAT_MS', 8000, 0, 600_000),
    questionRepeats: int(raw, 'SPEECH_QUESTION_REPEATS', 3, 0, 20),
    questionRepeatPhrases: phrasePerLanguage(
      raw,
      'SPEECH_QUESTION_REPEAT_PHRASE',
      DEFAULT_QUESTION_REPEAT_PHRASES,
    ),
    toolStillPhrases: phrasePerLanguage(
      raw,
      'SPEECH_TOOL_STILL_PHRASE',
      DEFAULT_TOOL_STILL_PHRASES,
    ),
    unclearPhrases: phrasePerLanguage(raw, 'SPEECH_UNCLEAR_PHRASE', DEFAULT_UNCLEAR_PHRASES),
    errorPhrases: phrasePerLanguage(raw, 'SPEECH_ERROR_PHRASE', DEFAULT_ERROR_PHRASES),
    holdPhrases: phrasePerLanguage(raw, 'SPEECH_HOLD_PHRASE', DEFAULT_HOLD_PHRASES),
    stillHerePhrases: phrasePerLanguage(
      raw,
      'SPEECH_STILL_HERE_PHRASE',
      DEFAULT_STILL_HERE_PHRASES,
    ),
    confirmPhrases: phrasePerLanguage(raw, 'SPEECH_CONFIRM_PHRASE', DEFAULT_CONFIRM_PHRASES),
    clientTls: speechClientTls(raw),
    tts: {
      provider: tts,
      baseUrl: ttsUrl,
      model: present(raw, 'TTS_MODEL') ?? 'tts-1',
      voice: present(raw, 'TTS_VOICE') ?? '',
      apiKey: present(raw, 'TTS_API_KEY') ?? '',
      sampleRate: int(raw, 'TTS_SAMPLE_RATE', 24000, 8000, 192000),
      timeoutSecs: num(raw, 'TTS_TIMEOUT_SECS', 30, 0, 3600),
      espeakWorkers: int(raw, 'TTS_ESPEAK_WORKERS', 1, 1, 32),
      cacheBytes: int(raw, 'TTS_CACHE_MB', 16, 0, 4096) * 1024 * 1024,
      fallback: oneOf(raw, 'TTS_FALLBACK', 'none', ['espeak', 'none'] as const),
    },
    stt: {
      provider: stt,
      baseUrl: sttUrl,
      model: present(raw, 'STT_MODEL') ?? 'whisper-1',
      apiKey: present(raw, 'STT_API_KEY') ?? '',
      maxSeconds: num(raw, 'STT_MAX_SECONDS', 30, 0, 600),
      timeoutSecs: num(raw, 'STT_TIMEOUT_SECS', 30, 0, 3600),
      ...detectedLanguages(raw),
      ...sttFallback(raw),
    },
    vad: {
      silenceMs: int(raw, 'VAD_SILENCE_MS', 0, 0, 10_000),
      minSpeechMs: int(raw, 'VAD_MIN_SPEECH_MS', 200, 20, 2000),
      mode: int(raw, 'VAD_MODE', 2, 0, 3),
      unfinishedWaitMs: int(raw, 'VAD_UNFINISHED_WAIT_MS', 2000, 0, 10_000),
    },
    ...parseTelephony(raw),
  };
}

/** STT_FALLBACK_BASE_URL, its key and model; none when it is not set. */
function sttFallback(raw: Raw): Pick<SpeechEnv['stt'], 'fallback'> {
  const baseUrl = httpUrl(raw, 'STT_FALLBACK_BASE_URL', '', ['/audio/transcriptions']);
  const afterMs = int(raw, 'STT_FALLBACK_AFTER_MS', 0, 0, 60_000);
  if (!baseUrl && afterMs > 0)
    throw new EnvError(
      'STT_FALLBACK_AFTER_MS is set but STT_FALLBACK_BASE_URL is not: there is no second server to ask',
    );
  if (!baseUrl) return {};
  const model = present(raw, 'STT_FALLBACK_MODEL') ?? present(raw, 'STT_MODEL') ?? 'whisper-1';
  const apiKey = present(raw, 'STT_FALLBACK_API_KEY') ?? '';
  return { fallback: { baseUrl, apiKey, model, afterMs } };
}
