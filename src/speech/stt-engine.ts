import { Inject, Injectable, Logger } from '@nestjs/common';
import { egressFetch } from '../common/egress.js';
import { excerpt, mediaType } from '../common/http-text.js';
import { boundedText, ERROR_BODY_BYTES } from '../common/response-body.js';
import { speechConfig, type SpeechConfig } from '../config/app.config.js';
import { speechFailure } from './speech-failure.js';
import { wavOf } from './wav.js';
import { endpointOf } from '../common/server-url.js';
import { languageCode } from '../common/language-code.js';
import { retryWarning, sendWithRetries } from './speech-retry.js';
import { detectedLanguage } from './whisper-languages.js';
import { withTimeout } from '../common/timeout-signal.js';

export const STT_SAMPLE_RATE = 16000;

/** An utterance's words, and the language the server heard them in (when asked to tell it). */
export interface Transcribed {
  text: string;
  language?: string;
}

/** Port: speech-to-text of one utterance of 16 kHz mono s16le PCM. */
export abstract class SttEngine {
  abstract readonly provider: 'openai' | 'none';
  /** `language`: the hint; `detect`: the server is asked to detect it instead, and tell it. */
  abstract transcribe(
    pcm: Buffer,
    language: string,
    signal: AbortSignal,
    detect?: boolean,
  ): Promise<Transcribed>;
}

/** The server refused `verbose_json` (OpenAI's gpt-4o-transcribe answers json or text only). */
class VerboseRefused extends Error {}

/** The most of a transcription read: an utterance of STT_MAX_SECONDS says far less. */
const ANSWER_MAX_BYTES = 1024 * 1024;

/**
 * `POST {STT_BASE_URL}/audio/transcriptions` (speaches/faster-whisper, whisper.cpp server, OpenAI);
 * `fallback`: STT_FALLBACK_BASE_URL's, with its own key and model (and no client certificate).
 */
@Injectable()
export class OpenAiSttEngine extends SttEngine {
  readonly provider = 'openai' as const;
  private readonly logger = new Logger('SttEngine');
  /** The server as errors and warnings name it. */
  private readonly name: string;

  /** The server refused `verbose_json`: the language is no longer asked of it. */
  private noDetection = false;

  constructor(
    @Inject(speechConfig.KEY) private readonly config: SpeechConfig,
    private readonly which: 'server' | 'fallback' = 'server',
  ) {
    super();
    this.name = which === 'server' ? 'speech-to-text server' : 'fallback speech-to-text server';
  }

  /** Where, with what key and model, read at each request (a rotated key counts at once). */
  private get server(): { baseUrl: string; apiKey: string; model: string } {
    const { stt } = this.config;
    return this.which === 'server' ? stt : stt.fallback!;
  }

  async transcribe(
    pcm: Buffer,
    language: string,
    signal: AbortSignal,
    detect = false,
  ): Promise<Transcribed> {
    if (!detect || this.noDetection) return this.send(pcm, language, signal);
    try {
      return await this.send(pcm, undefined, signal);
    } catch (error) {
      if (!(error instanceof VerboseRefused)) throw error;
      this.noDetection = true;
      this.logger.warn(
        `the ${this.name} does not tell the language it heard (${error.message}): utterances go with the session's language from now on, and STT_DETECT_LANGUAGE does nothing`,
      );
      return this.send(pcm, language, signal);
    }
  }

  /** One transcription: with `language` as its hint, or none (`verbose_json`: the server tells it). */
  private async send(
    pcm: Buffer,
    language: string | undefined,
    signal: AbortSignal,
  ): Promise<Transcribed> {
    const { stt } = this.config;
    const server = this.server;
    const form = new FormData();
    form.append(
      'file',
      new Blob([wavOf(pcm, STT_SAMPLE_RATE)], { type: 'audio/wav' }),
      'utterance.wav',
    );
    form.append('model', server.model);
    // Without a hint the server detects the language; `verbose_json` says which it heard.
    if (language) form.append('language', languageCode(language));
    form.append('response_format', language ? 'json' : 'verbose_json');
    const headers: Record<string, string> = {};
    if (server.apiKey) headers.Authorization = `Bearer ${server.apiKey}`;
    let response: Response;
    let body: string;
    try {
      // The attempt's own time, its answer's body read within it too.
      let deadline = signal;
      const send = () =>
        egressFetch(
          endpointOf(server.baseUrl, '/audio/transcriptions'),
          {
            method: 'POST',
            headers,
            body: form,
            signal: (deadline = withTimeout(signal, stt.timeoutSecs * 1000)),
          },
          this.which === 'server' ? this.config.clientTls : undefined,
        );
      const { retries } = this.config;
      const warn = retryWarning(this.logger, this.name, retries);
      response = await sendWithRetries(send, retries, signal, warn);
      const limit = response.ok ? ANSWER_MAX_BYTES : ERROR_BODY_BYTES;
      const read = await boundedText(response, limit, deadline);
      if (response.ok && read.more)
        throw new Error(
          `the ${this.name} answered more than ${ANSWER_MAX_BYTES / 1048576} MiB: no transcription is that long`,
        );
      body = read.text;
    } catch (error) {
      if (signal.aborted) throw error;
      throw speechFailure(error, {
        name: this.name,
        timeoutSetting: 'STT_TIMEOUT_SECS',
        timeoutSecs: stt.timeoutSecs,
      });
    }
    if (!language && response.status === 400 && /verbose_json|response_format/i.test(body))
      throw new VerboseRefused(`HTTP 400: ${body.slice(0, 300)}`);
    if (!response.ok)
      throw new Error(`${this.name} answered HTTP ${response.status}: ${body.slice(0, 300)}`);
    // A page (a proxy's, a login's) is no transcription: read as one, it would be the user's words.
    const { type } = mediaType(response.headers.get('content-type'));
    if (type === 'text/html' || type === 'application/xhtml+xml')
      throw new Error(`${this.name} answered ${type}, not a transcription: ${excerpt(body)}`);
    try {
      const answer = JSON.parse(body) as { text?: unknown; language?: unknown };
      const heardIn = detectedLanguage(answer.language);
      if (typeof answer.text === 'string')
        return { text: answer.text.trim(), ...(heardIn && { language: heardIn }) };
    } catch {
      return { text: body.trim() };
    }
    throw new Error(`${this.name} answered without a "text" field`);
  }
}

/** `STT_PROVIDER=none`. */
@Injectable()
export class NoSttEngine extends SttEngine {
  readonly provider = 'none' as const;
  transcribe(): Promise<Transcribed> {
    return Promise.reject(
      new Error(
        'speech-to-text is not configured: set STT_BASE_URL to an OpenAI-compatible server',
      ),
    );
  }
}
