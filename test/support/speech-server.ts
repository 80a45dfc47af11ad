import { RecordingServer } from './recording-server.js';

/**
 * A real OpenAI-compatible speech server on loopback: each synthesis (`/audio/speech`) answers
 * `seconds` of 24 kHz PCM, each transcription (`/audio/transcriptions`) `transcript`.
 */
export class FakeSpeech extends RecordingServer {
  seconds = 0.2;
  transcript = 'What is the weather like in Paris today?';

  constructor() {
    super();
    this.respond((req, res) => {
      if (req.path === '/audio/transcriptions')
        return void res.end(JSON.stringify({ text: this.transcript }));
      res
        .writeHead(200, { 'Content-Type': 'audio/pcm' })
        .end(Buffer.alloc(Math.round(this.seconds * 24000) * 2, 7));
    });
  }

  /** The texts synthesised, in order. */
  inputs(): string[] {
    return this.requests
      .filter((r) => r.path === '/audio/speech')
      .map((r) => (JSON.parse(r.body) as { input: string }).input);
  }
}
