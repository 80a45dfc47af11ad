/**
 * The answer's speech as the client hears it: in its `output_audio_format` (G.711 at 8 kHz for a
 * telephony gateway, or the engine's PCM), as `audio` events or binary frames. Pure: no Nest import.
 */
import { heardFormat, outbound } from '../speech/audio-formats.js';
import type { SpeechEvent } from '../speech/speak-options.js';
import type { ServerEvent, SessionSettings } from './protocol/server-events.js';

export interface SpeechOut {
  send(event: SpeechEvent): void;
  /** The turn's speech is over. */
  close(): void;
}

/** Sends one turn's speech, synthesised at `pcmRate`, as `settings` ask. */
export async function speechOut(
  settings: Pick<SessionSettings, 'audio' | 'output_audio_format'>,
  pcmRate: number,
  send: (event: ServerEvent | Buffer) => void,
): Promise<SpeechOut> {
  const converter = await outbound(settings.output_audio_format, pcmRate);
  const format = heardFormat(settings.output_audio_format, pcmRate);
  return {
    send: (event) => {
      if (event.type !== 'audio') return send(event);
      const data = converter ? converter.convert(event.data) : event.data;
      if (settings.audio === 'binary') return send(data);
      send({ type: 'audio', seq: event.seq, ...format, data: data.toString('base64') });
    },
    close: () => converter?.close(),
  };
}
