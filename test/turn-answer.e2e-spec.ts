import { Logger } from '@nestjs/common';
import { sseText } from './support/fake-llm.js';
import { deltas, pieces, types, useTurnHarness, xmlCall } from './support/turn-harness.js';

describe("a turn's answer over /ws: the fallback, its deltas, history and the LLM's errors (seed §5)", () => {
  const h = useTurnHarness();

  it('falls back to a non-streamed request when a round streams back empty: a call there is executed', async () => {
    h.llm.enqueue(
      sseText([], 'tool_calls'),
      {
        kind: 'json',
        body: {
          choices: [
            {
              message: { role: 'assistant', content: xmlCall('get_weather', { city: 'Lima' }) },
              finish_reason: 'stop',
            },
          ],
        },
      },
      sseText(['Lima is sunny.']),
    );
    const msgs = await h.ws.turn('Lima?');
    expect(msgs.find((m) => m.type === 'tool_call')).toMatchObject({
      name: 'get_weather',
      arguments: { city: 'Lima' },
    });
    expect(h.llm.requests.map((r) => r.body.stream)).toEqual([true, false, true]);
    expect(msgs.at(-1)).toMatchObject({ text: 'Lima is sunny.' });
  });

  it('falls back to a non-streamed request whose text is then sent as deltas', async () => {
    h.llm.enqueue(sseText([]), {
      kind: 'json',
      body: {
        choices: [
          { message: { role: 'assistant', content: 'Hello there.' }, finish_reason: 'stop' },
        ],
      },
    });
    const msgs = await h.ws.turn('hi');
    expect(deltas(msgs).join('')).toBe('Hello there.');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Hello there.' });
    expect(h.llm.requests).toHaveLength(2);
  });

  it('logs why the user got no answer, or only its start: the reason the server gave', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      const reply = (content: string, finish: string) => ({
        kind: 'json' as const,
        body: { choices: [{ message: { role: 'assistant', content }, finish_reason: finish }] },
      });
      h.llm.enqueue(sseText([], 'length'), reply('', 'length'));
      expect(await h.ws.turn('hi')).toEqual([{ type: 'assistant_end', text: '' }]);
      h.llm.enqueue(sseText(['It is sunny and'], 'length'));
      await h.ws.turn('hi');
      h.llm.enqueue(sseText([], 'content_filter'), reply('', 'content_filter'));
      await h.ws.turn('hi');
      const logged = warn.mock.calls.map((c) => String(c[0]));
      const cut =
        /^the model's output was cut off at its token limit \(finish_reason "length"\): raise the server's max_tokens \(LLM_EXTRA_BODY\) \(session_id=[\w-]+ turn_id=[\w-]+\)$/;
      expect(logged.filter((l) => cut.test(l))).toHaveLength(2);
      expect(logged).toContainEqual(
        expect.stringMatching(
          /^the server's content filter stopped the model's output \(finish_reason "content_filter"\) \(session_id=/,
        ),
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('costs exactly one request for a normal text turn', async () => {
    h.llm.enqueue(sseText(['Just ', 'text.']));
    const msgs = await h.ws.turn('hi');
    expect(deltas(msgs).join('')).toBe('Just text.');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Just text.' });
    expect(h.llm.requests).toHaveLength(1);
  });

  it('sends the deltas it reads at once as one frame, and deltas that come apart as they come', async () => {
    h.llm.enqueue({
      kind: 'sse',
      pieces: [sseText(['One ', 'frame ', 'for all.']).pieces.join('')],
    });
    const together = await h.ws.turn('hi');
    expect(together.filter((m) => m.type === 'assistant_delta')).toEqual([
      { type: 'assistant_delta', text: 'One frame for all.' },
    ]);
    h.llm.enqueue({ ...sseText(['Apart ', 'they ', 'come.']), delayMs: 50 });
    expect(deltas(await h.ws.turn('again'))).toEqual(['Apart ', 'they ', 'come.']);
  });

  it('separates the text of two rounds by one space, however the deltas were cut (none after CJK)', async () => {
    const call = xmlCall('get_weather', { city: 'Paris' });
    for (const [first, second, expected, after = ''] of [
      ['Let me check ', 'It is sunny.', 'Let me check It is sunny.'],
      ['Let me check', 'It is sunny.', 'Let me check It is sunny.'],
      ['Let me check.\n\n', 'It is sunny.', 'Let me check.\n\nIt is sunny.'],
      ['让我查一下。', '巴黎晴天。', '让我查一下。巴黎晴天。'],
      // Layout between and after calls, and before the next round's text, is not shown...
      ['Let me check.\n', '\n\nIt is sunny.', 'Let me check.\nIt is sunny.', `\n${call}\n\n`],
      // ...but text after a call in the same message keeps what separates it.
      ['Checking.', 'Sunny.', 'Checking.\n\nAnd Rome. Sunny.', '\n\nAnd Rome.'],
    ]) {
      for (const size of [1, 4, 50]) {
        h.llm.reset();
        h.llm.enqueue(
          sseText(pieces(`${first}${call}${after}`, size)),
          sseText(pieces(second!, size)),
        );
        const msgs = await h.ws.turn('Weather?');
        expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: expected });
        expect(deltas(msgs).join('')).toBe(expected);
      }
    }
  });

  it('keeps history across turns, a long answer whole', async () => {
    const pieces = Array.from({ length: 150 }, (_, i) => (i === 0 ? 'I am Ada' : ` ${i}`));
    const answer = pieces.join('');
    h.llm.enqueue(sseText(pieces), sseText(['You asked my name.']));
    const first = await h.ws.turn('Who are you?');
    expect(first.at(-1)).toEqual({ type: 'assistant_end', text: answer });
    await h.ws.turn('What did I ask?');
    expect(h.llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Who are you?' },
      { role: 'assistant', content: answer },
      { role: 'user', content: 'What did I ask?' },
    ]);
  });

  it('ends the turn with error and assistant_end on an LLM error, and the session stays usable', async () => {
    const crashed = {
      kind: 'status',
      status: 500,
      body: '{"error":{"message":"model crashed"}}',
    } as const;
    // The first try and LLM_RETRIES (2) more.
    h.llm.enqueue(crashed, crashed, crashed, sseText(['Back.']));
    const msgs = await h.ws.turn('hi');
    expect(msgs).toEqual([
      { type: 'error', code: 'llm_failed', message: 'LLM server answered HTTP 500: model crashed' },
      { type: 'assistant_end', text: '' },
    ]);
    expect(h.llm.requests).toHaveLength(3);
    expect((await h.ws.turn('again')).at(-1)).toEqual({ type: 'assistant_end', text: 'Back.' });
  });

  it('retries an overloaded LLM server before the answer begins: the user just gets the answer', async () => {
    h.llm.enqueue(
      { kind: 'status', status: 503, body: 'overloaded', headers: { 'Retry-After': '0' } },
      sseText(['Here ', 'it is.']),
    );
    const msgs = await h.ws.turn('hi');
    expect(new Set(types(msgs))).toEqual(new Set(['assistant_delta', 'assistant_end']));
    expect(deltas(msgs).join('')).toBe('Here it is.');
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Here it is.' });
    expect(h.llm.requests.map((r) => r.body.messages.at(-1))).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'hi' },
    ]);
  });
});
