import { failureReason, httpFault, isContextOverflow, StreamFault } from './stream-fault.js';

describe('isContextOverflow', () => {
  it("knows the servers' ways of saying the conversation is longer than the context", () => {
    const overflows = [
      // OpenAI (and DeepSeek, Groq): the code, and the message.
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130021 tokens. Please reduce the length of the messages.",
      'context_length_exceeded',
      // vLLM, before and after its 2026 rewording.
      "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
      "You passed 12289 input tokens and requested 4096 output tokens. However, the model's context length is only 16384 tokens, resulting in a maximum input length of 12288 tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=12289)",
      // Older vLLM: no room left for the answer (max_model_len minus the prompt is negative).
      'max_tokens must be at least 1, got -186.',
      'The decoder prompt (length 40000) is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens.',
      // SGLang, written into an HTTP 200 stream.
      "Requested token count exceeds the model's maximum context length of 196608 tokens. You requested a total of 204830 tokens.",
      'Input length (40000 tokens) exceeds the maximum allowed length (32768 tokens).',
      // llama.cpp's server, TGI, Gemini's and Anthropic's compatible endpoints.
      'the request exceeds the available context size, try increasing it',
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      'prompt is too long: 210000 tokens > 200000 maximum',
      'Your input exceeds the context window of this model.',
      // A proxy in front of the server, refusing the body's size.
      'LLM server answered HTTP 413: <html><head><title>413 Request Entity Too Large</title></head></html>',
    ];
    expect(overflows.filter((m) => !isContextOverflow(m))).toEqual([]);
    const others = [
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      "Invalid 'tools' format",
      'The model `qwen` does not exist.',
      'Rate limit reached for requests',
      'LLM stream closed before [DONE]',
    ];
    expect(others.filter(isContextOverflow)).toEqual([]);
  });
});

describe('retry policy', () => {
  it('calls a fault retryable when a new request may succeed: transient, or timed out', () => {
    expect(new StreamFault('overloaded', { status: 503, transient: true }).retryable).toBe(true);
    expect(new StreamFault('timed out', { timedOut: true }).retryable).toBe(true);
    expect(new StreamFault('refused', { status: 400 }).retryable).toBe(false);
    expect(new StreamFault('LLM server error: context too long').retryable).toBe(false);
  });
});

describe('failureReason', () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it('names a failed connection by its code alone, never by the address', () => {
    expect(failureReason(withCode('getaddrinfo ENOTFOUND vllm.internal', 'ENOTFOUND'))).toBe(
      'no connection to the LLM server (ENOTFOUND)',
    );
    const fetchFailed = Object.assign(new TypeError('fetch failed'), {
      cause: withCode('connect ECONNREFUSED 10.0.3.4:8000', 'ECONNREFUSED'),
    });
    expect(failureReason(fetchFailed)).toBe('no connection to the LLM server (ECONNREFUSED)');
  });

  it("keeps any other error's message", () => {
    expect(failureReason(withCode('Premature close', 'ERR_STREAM_PREMATURE_CLOSE'))).toBe(
      'Premature close',
    );
    expect(failureReason(new Error('the LLM server sent a reply larger than 16 MiB'))).toBe(
      'the LLM server sent a reply larger than 16 MiB',
    );
    expect(failureReason('odd')).toBe('odd');
  });
});

describe('httpFault', () => {
  it("quotes the server's error, and hints at the base URL when a web server says the path is not there", () => {
    expect(httpFault(404, '404 page not found').message).toBe(
      "LLM server answered HTTP 404: 404 page not found (is the server's base URL the API's, ending in /v1?)",
    );
    expect(httpFault(405, '<html>Method Not Allowed</html>').message).toMatch(
      /ending in \/v1\?\)$/,
    );
    // The API's own 404 (a model it does not have) is no wrong path.
    expect(httpFault(404, '{"error":{"message":"The model `qwen` does not exist"}}').message).toBe(
      'LLM server answered HTTP 404: The model `qwen` does not exist',
    );
    expect(httpFault(500, 'oops').message).toBe('LLM server answered HTTP 500: oops');
  });
});
