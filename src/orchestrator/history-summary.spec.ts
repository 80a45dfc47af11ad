import type { ChatMessage } from '../llm/llm.types.js';
import {
  boundHistory,
  ConversationMemory,
  transcriptOf,
  UNSUMMARISED_MAX,
} from './history-summary.js';

const turn = (n: number): ChatMessage[] => [
  { role: 'user', content: `question ${n}` },
  { role: 'assistant', content: `answer ${n}` },
];
const history = (turns: number) => Array.from({ length: turns }, (_, i) => turn(i + 1)).flat();

describe('boundHistory', () => {
  it('drops only what exceeds the bound without a memory, as before', () => {
    const kept = boundHistory(history(6), 10, undefined);
    expect(kept).toEqual(history(6).slice(2));
  });

  it('drops whole turns down to half the bound into the memory, once it is exceeded', () => {
    const memory = new ConversationMemory();
    expect(boundHistory(history(5), 10, memory)).toEqual(history(5));
    const kept = boundHistory(history(6), 10, memory);
    expect(kept).toEqual(history(6).slice(8));
    const asked: ChatMessage[][] = [];
    void memory.summarize((_previous, messages) =>
      Promise.resolve((asked.push(messages), 'summary')),
    );
    return memory
      .summarize(() => Promise.resolve('never asked: nothing is pending'))
      .then((changed) => {
        expect(changed).toBe(false);
        expect(asked).toEqual([history(4)]);
        expect(memory.summary).toBe('summary');
      });
  });
});

describe('ConversationMemory', () => {
  it('summarises one request at a time, each on the summary before it', async () => {
    const memory = new ConversationMemory();
    const seen: string[] = [];
    const ask = async (previous: string, messages: ChatMessage[]) => {
      seen.push(previous);
      await new Promise((r) => setTimeout(r, 5));
      return `${previous}+${messages.length}`;
    };
    memory.dropped(turn(1));
    const first = memory.summarize(ask);
    await new Promise((r) => setTimeout(r, 1)); // the first request under way
    memory.dropped(history(2));
    const second = memory.summarize(ask);
    expect([await first, await second]).toEqual([true, true]);
    expect(seen).toEqual(['', '+2']);
    expect(memory.summary).toBe('+2+4');
  });

  it('asks again what it could not summarise with the next messages dropped, and keeps the summary it had', async () => {
    const memory = new ConversationMemory();
    memory.dropped(turn(1));
    await memory.summarize(() => Promise.resolve('first'));
    memory.dropped(turn(2));
    expect(await memory.summarize(() => Promise.resolve(undefined))).toBe(false);
    // Nothing new dropped: not asked again yet.
    let asks = 0;
    expect(await memory.summarize(() => Promise.resolve(`${++asks}`))).toBe(false);
    expect(asks).toBe(0);
    memory.dropped(turn(3));
    expect(await memory.summarize(() => Promise.reject(new Error('down')))).toBe(false);
    expect(memory.summary).toBe('first');
    let asked: ChatMessage[] = [];
    memory.dropped(turn(4));
    await memory.summarize((_p, messages) => Promise.resolve(((asked = messages), 'second')));
    expect(asked).toEqual([...turn(2), ...turn(3), ...turn(4)]);
    expect(memory.summary).toBe('second');
  });

  it(`keeps the last ${UNSUMMARISED_MAX} messages of failed summaries at most`, async () => {
    const memory = new ConversationMemory();
    for (let i = 0; i < UNSUMMARISED_MAX; i++) {
      memory.dropped(turn(i));
      await memory.summarize(() => Promise.resolve(undefined));
    }
    let asked: ChatMessage[] = [];
    memory.dropped(turn(UNSUMMARISED_MAX));
    await memory.summarize((_p, messages) => Promise.resolve(((asked = messages), 'made')));
    expect(asked).toHaveLength(UNSUMMARISED_MAX + turn(0).length);
    expect(asked.at(-1)).toEqual(turn(UNSUMMARISED_MAX).at(-1));
  });
});

describe('transcriptOf', () => {
  it('writes who said or did what, tools named by their calls, long results cut', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Weather in Rome?' },
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'x'.repeat(1200) },
      { role: 'assistant', content: 'Sunny.' },
    ];
    expect(transcriptOf(messages)).toBe(
      [
        'User: Weather in Rome?',
        'Assistant: Let me check.',
        'Assistant called get_weather({"city":"Rome"})',
        `Result of get_weather: ${'x'.repeat(1000)}…`,
        'Assistant: Sunny.',
      ].join('\n'),
    );
  });
});
