import { speechFailure } from './speech-failure.js';

const server = { name: 'TTS server', timeoutSetting: 'TTS_TIMEOUT_SECS', timeoutSecs: 3 };
const say = (error: unknown) => speechFailure(error, server).message;

describe("a speech server's failure, as the client and operator read it", () => {
  it("says fetch's 'terminated' by its cause: an answer broken off, or not what it says", () => {
    const eof = new Error('Response does not match the HTTP/1.1 protocol (Invalid EOF state)');
    expect(say(new TypeError('terminated', { cause: eof }))).toBe(
      'the TTS server broke off its answer (Response does not match the HTTP/1.1 protocol (Invalid EOF state))',
    );
    expect(say(new TypeError('terminated'))).toBe('the TTS server broke off its answer');
    const zlib = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR' });
    expect(say(new TypeError('terminated', { cause: zlib }))).toBe(
      "the TTS server's answer is not what its Content-Encoding says (incorrect header check)",
    );
  });

  it('says a timeout as such, also when a stream was ended by it', () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(say(timeout)).toBe('the TTS server did not answer within TTS_TIMEOUT_SECS (3s)');
    const ended = new DOMException('The operation was aborted', 'AbortError');
    Object.defineProperty(ended, 'cause', { value: timeout });
    expect(say(ended)).toBe('the TTS server did not answer within TTS_TIMEOUT_SECS (3s)');
  });
});
