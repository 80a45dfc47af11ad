import { Inject, Injectable, Logger } from '@nestjs/common';
import { addAbortSignal, Readable } from 'node:stream';
import type { ReadableStream as WebStream } from 'node:stream/web';
import { egressFetch } from '../common/egress.js';
import { excerpt, mediaType } from '../common/http-text.js';
import { boundedText, ERROR_BODY_BYTES } from '../common/response-body.js';
import { speechConfig, type SpeechConfig } from '../config/app.config.js';
import { speechFailure } from './speech-failure.js';
import { speechPcm } from './speech-audio.js';
import { TtsEngine, type SynthesisRequest } from './tts-engine.js';
import { endpointOf } from '../common/server-url.js';
import { retryWarning, sendWithRetries } from './speech-retry.js';
import { withTimeout } from '../common/timeout-signal.js';

/**
 * The start of what a TTS server sent instead of audio, to quote ('' when it cannot be read
 * before `deadline`).
 */
const errorPage = (response: Response, deadline: AbortSignal) =>
  boundedText(response, ERROR_BODY_BYTES, deadline).then(
    (read) => read.text,
    () => '',
  );

/**
 * Any OpenAI-compatible speech endpoint (Kokoro-FastAPI, speaches, OpenAI):
 * `POST {TTS_BASE_URL}/audio/speech` with `response_format: "pcm"`; the body is forwarded as it streams.
 */
@Injectable()
export class OpenAiTtsEngine extends TtsEngine {
  readonly provider = 'openai' as const;
  readonly sampleRate: number;
  private readonly logger = new Logger('OpenAiTtsEngine');

  constructor(@Inject(speechConfig.KEY) private readonly config: SpeechConfig) {
    super();
    this.sampleRate = config.tts.sampleRate;
  }

  async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
    const { tts } = this.config;
    try {
      yield* this.request(request);
    } catch (error) {
      if (request.signal.aborted) throw error;
      throw speechFailure(error, {
        name: 'TTS server',
        timeoutSetting: 'TTS_TIMEOUT_SECS',
        timeoutSecs: tts.timeoutSecs,
      });
    }
  }

  private async *request(request: SynthesisRequest): AsyncIterable<Buffer> {
    const { tts } = this.config;
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (tts.apiKey) headers.Authorization = `Bearer ${tts.apiKey}`;
    const body = JSON.stringify({
      model: tts.model,
      voice: request.voice || 'alloy',
      input: request.text,
      response_format: 'pcm',
    });
    // Each attempt its own time: the timeout is of one request, its answer's body read within it.
    let deadline = request.signal;
    const send = () =>
      egressFetch(
        endpointOf(tts.baseUrl, '/audio/speech'),
        {
          method: 'POST',
          headers,
          signal: (deadline = withTimeout(request.signal, tts.timeoutSecs * 1000)),
          body,
        },
        this.config.clientTls,
      );
    const { retries } = this.config;
    const warn = retryWarning(this.logger, 'TTS server', retries);
    const response = await sendWithRetries(send, retries, request.signal, warn);
    if (!response.ok || !response.body) {
      const text = (await errorPage(response, deadline)).slice(0, 300);
      throw new Error(`TTS server answered HTTP ${response.status}${text ? `: ${text}` : ''}`);
    }
    // A server that ignores response_format (MP3 is OpenAI's default) or a proxy's page: played
    // as PCM, either would be loud noise in the caller's ear.
    const { type } = mediaType(response.headers.get('content-type'));
    if (NOT_PCM.test(type)) {
      const text = /^(text\/|application\/json)/.test(type)
        ? excerpt(await errorPage(response, deadline))
        : (await response.body.cancel(), '');
      throw new Error(
        `the TTS server answered ${type}, not raw PCM (response_format "pcm")${text ? `: ${text}` : ''}`,
      );
    }
    // Read within the request's time: fetch's own abort does not always reach a body cut off.
    const audio = addAbortSignal(
      deadline,
      Readable.fromWeb(response.body as WebStream<Uint8Array>),
    );
    yield* speechPcm(audio, this.sampleRate);
  }
}

/**
 * Content types that cannot be raw PCM: text, JSON, compressed audio. (A WAV label is let through:
 * some servers send raw PCM under it; a real WAV is read as one, speech-audio.ts.)
 */
const NOT_PCM = /^(text\/|application\/json|audio\/(mpeg|mp3|ogg|opus|aac|flac|webm|mp4))/;

/** `TTS_PROVIDER=none`: no audio at all. */
@Injectable()
export class NoTtsEngine extends TtsEngine {
  readonly provider = 'none' as const;
  readonly sampleRate = 0;
  synthesize(): AsyncIterable<Buffer> {
    return (async function* () {})();
  }
}
