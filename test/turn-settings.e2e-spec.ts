import { sseText, sseTextWithUsage } from './support/fake-llm.js';
import { useTurnHarness, xmlCall } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

describe("a session's own settings, and its turns' token usage, over /ws", () => {
  const h = useTurnHarness();

  it("adds a session's instructions to its system prompt only, and refuses them over the limit", async () => {
    const context = 'The caller is Ada, a premium customer.';
    h.ws.send({ type: 'session.update', instructions: context });
    await h.ws.waitFor((m) => m.type === 'session.updated');
    h.llm.enqueue(sseText(['Hi Ada.']), sseText(['Hello.']));
    await h.ws.turn('hi');
    const other = await WsClient.connect(h.engine.wsUrl);
    await other.turn('hi');
    other.close();
    const [mine, theirs] = h.llm.requests.map((r) => r.body.messages[0]);
    expect(theirs.content).not.toContain('Ada');
    // The instructions go between the engine's prompt and the day (LLM_CLOCK), which comes last.
    const [prompt, today] = theirs.content.split(/\n\n(?=Today is )/);
    expect(mine).toEqual({ role: 'system', content: `${prompt}\n\n${context}\n\n${today}` });

    const from = h.ws.messages.length;
    h.ws.send({ type: 'session.update', instructions: 'x'.repeat(4001) });
    expect(await h.ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      code: 'invalid_message',
      message:
        '"instructions" is longer than SESSION_INSTRUCTIONS_MAX_CHARS (4000); nothing was changed',
    });
    h.llm.enqueue(sseText(['Ok.']));
    await h.ws.turn('again');
    expect(h.llm.requests[2]!.body.messages[0]).toEqual(mine);
  });

  it("tells the model the day in the session's time zone, and refuses a zone that is none", async () => {
    const day = (timeZone: string) =>
      new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());
    h.llm.enqueue(sseText(['Hi.']), sseText(['Hi again.']));
    await h.ws.turn('hi');
    h.ws.send({ type: 'session.update', timezone: 'pacific/kiritimati' });
    const updated = await h.ws.waitFor((m) => m.type === 'session.updated');
    expect(updated.settings.timezone).toBe('Pacific/Kiritimati');
    await h.ws.turn('hi again');
    const [utc, kiritimati] = h.llm.requests.map((r) => r.body.messages[0].content as string);
    expect(utc).toMatch(
      new RegExp(`\\n\\nToday is \\w+, .+ \\(${day('UTC')}\\), time zone UTC\\.$`),
    );
    expect(kiritimati).toMatch(
      new RegExp(
        `Today is \\w+, .+ \\(${day('Pacific/Kiritimati')}\\), time zone Pacific/Kiritimati\\.$`,
      ),
    );

    const from = h.ws.messages.length;
    h.ws.send({ type: 'session.update', timezone: 'Europe/Atlantis' });
    expect(await h.ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      code: 'invalid_message',
      message:
        '"timezone" must be an IANA time zone such as Europe/Rome, America/New_York or UTC, not "Europe/Atlantis"; nothing was changed',
    });
    h.llm.enqueue(sseText(['Still here.']));
    await h.ws.turn('still there?');
    expect(h.llm.requests[2]!.body.messages[0].content).toBe(kiritimati);
  });

  it('offers a session only the tools it selected; a hidden tool called anyway is unknown', async () => {
    h.ws.send({ type: 'session.update', tools: ['get_weather'] });
    const updated = await h.ws.waitFor((m) => m.type === 'session.updated');
    expect(updated.settings.tools).toEqual(['get_weather']);
    // No speech in this engine (TTS_PROVIDER=none): no audio format to announce.
    expect(updated.audio_format).toBeNull();
    h.llm.enqueue(sseText([xmlCall('missing', {})]), sseText(['Sorry.']));
    await h.ws.turn('hi');
    const offered = (r: number) => h.llm.requests[r]!.body.tools.map((t: any) => t.function.name);
    expect(offered(0)).toEqual(['get_weather']);
    const tool = h.llm.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
    expect(tool.content).toBe("Error: unknown tool 'missing'");
    expect(h.tools.requests).toEqual([]);

    let from = h.ws.messages.length;
    h.ws.send({ type: 'session.update', tools: ['get_weather', 'teleport'] });
    expect(await h.ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
      code: 'invalid_message',
      message: expect.stringMatching(
        /^unknown tool "teleport" in "tools": the active tools are get_weather, missing,/,
      ),
    });
    from = h.ws.messages.length;
    h.ws.send({ type: 'session.update', tools: null });
    expect(
      (await h.ws.waitFor((m) => m.type === 'session.updated', from)).settings.tools,
    ).toBeNull();
    h.llm.enqueue(sseText(['All of them.']));
    await h.ws.turn('again');
    expect(offered(2)).toHaveLength(5);
  });

  it('does not ask again without streaming when an empty round had no tools to call', async () => {
    h.ws.send({ type: 'session.update', tools: [] });
    await h.ws.waitFor((m) => m.type === 'session.updated');
    h.llm.enqueue(sseText([]));
    const turn = await h.ws.turn('hi');
    expect(turn.at(-1)).toEqual({ type: 'assistant_end', text: '' });
    expect(h.llm.requests).toHaveLength(1);
    expect(h.llm.requests[0]!.body.tools).toBeUndefined();
    h.ws.send({ type: 'session.update', tools: null });
    await h.ws.waitFor((m) => m.type === 'session.updated');
  });

  it("reports the tokens of all the turn's requests in assistant_end when the server counts them", async () => {
    /** The answer followed by the usage chunk of `stream_options.include_usage`. */
    const withUsage = sseTextWithUsage;
    const tokens = async () => {
      const scrape = await (await fetch(`${h.engine.httpUrl}/metrics`)).text();
      const count = (type: string) =>
        Number(
          new RegExp(`^agent_engine_llm_tokens_total\\{type="${type}"\\} (\\d+)`, 'm').exec(
            scrape,
          )?.[1] ?? 0,
        );
      return { prompt: count('prompt'), completion: count('completion') };
    };
    const before = await tokens();
    h.llm.enqueue(
      withUsage([xmlCall('get_weather', { city: 'Paris' })], 300, 25),
      withUsage(['Sunny in Paris.'], 340, 6),
    );
    expect((await h.ws.turn('Weather?')).at(-1)).toEqual({
      type: 'assistant_end',
      text: 'Sunny in Paris.',
      usage: { prompt_tokens: 640, completion_tokens: 31, total_tokens: 671 },
    });
    // And in the metrics, both requests' tokens by type.
    const after = await tokens();
    expect({
      prompt: after.prompt - before.prompt,
      completion: after.completion - before.completion,
    }).toEqual({ prompt: 640, completion: 31 });
  });
});
