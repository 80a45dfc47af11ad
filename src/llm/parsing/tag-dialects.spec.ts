import fc from 'fast-check';
import { CompletionDecoder } from '../completion-decoder.js';
import { assertSameForAnySplit, decodeContent, piecesOf } from '../../../test/support/decode.js';

const schemas = new Map([
  ['bash', { type: 'object', properties: { command: { type: 'string' } } }],
  ['read', { type: 'object', properties: { filePath: { type: 'string' } } }],
  [
    'get_weather',
    { type: 'object', properties: { location: { type: 'string' }, days: { type: 'integer' } } },
  ],
  [
    'edit',
    {
      type: 'object',
      properties: {
        filePath: { type: 'string' },
        oldString: { type: 'string' },
        newString: { type: 'string' },
      },
    },
  ],
]);
const run = (content: string, size: number) => decodeContent(schemas, piecesOf(content, size));

// Qwen3.6 drift, from a public report (signalnine/q27 #24): the call's name written as the first
// parameter, unclosed, with no <tool_call> or <function=> around it.
describe("Qwen3.6's call name written as a parameter", () => {
  it.each([1, 3, 8, 1000])('is read as the call it means, fed %i characters at a time', (size) => {
    expect(
      run(
        '<parameter=bash>\n<parameter=command>\nfind /code -type f -name "*.md" | head -20\n</parameter>\n</function>\n' +
          '<parameter=read>\n<parameter=filePath>\n/code/init/internal/config/config.go\n</parameter>\n</function>',
        size,
      ),
    ).toEqual({
      calls: [
        ['bash', { command: 'find /code -type f -name "*.md" | head -20' }],
        ['read', { filePath: '/code/init/internal/config/config.go' }],
      ],
      text: '\n', // between the calls: layout, which the turn does not send alone
    });
    expect(
      run(
        'Editing it now.\n<parameter=edit>\n<parameter=filePath>\n/code/init/main.go\n</parameter>\n' +
          '<parameter=newString>\n//\tOLD\n</parameter>\n<parameter=oldString>\n//\tNEW\n</parameter>\n</function>',
        size,
      ),
    ).toEqual({
      calls: [
        ['edit', { filePath: '/code/init/main.go', newString: '//\tOLD', oldString: '//\tNEW' }],
      ],
      text: 'Editing it now.\n',
    });
  });

  it('leaves real parameters, and anything that is not that drift, as they are', () => {
    for (const size of [1, 4, 1000]) {
      // Inside a call, a parameter named like a tool stays a parameter.
      expect(
        run(
          '<tool_call>\n<function=edit>\n<parameter=filePath>\nx\n</parameter>\n<parameter=newString>\n<parameter=read>\n</parameter>\n</function>\n</tool_call>',
          size,
        ).calls,
      ).toEqual([['edit', { filePath: 'x', newString: '<parameter=read>' }]]);
      // Nor does the text of another dialect inside a value.
      expect(
        run(
          '<tool_call>\n<function=edit>\n<parameter=newString>\n<invoke name="read"></invoke><|tool_call_begin|>x<|tool_call_end|>\n</parameter>\n</function>\n</tool_call>',
          size,
        ).calls,
      ).toEqual([
        [
          'edit',
          { newString: '<invoke name="read"></invoke><|tool_call_begin|>x<|tool_call_end|>' },
        ],
      ]);
      // Not an active tool, or no parameter after it: not a call.
      for (const prose of [
        'Use <parameter=foo> then <parameter=bar>.',
        'Say <parameter=bash> out loud.',
      ])
        expect(run(prose, size)).toEqual({ calls: [], text: prose });
    }
  });
});

// The "invoke" dialect: MiniMax-M2's native calls (vectors from Ollama's MiniMax parser tests),
// and what DeepSeek, Kimi and Qwen models write when they imitate Anthropic's XML (public
// reports: closing tags often missing).
describe('the invoke dialect', () => {
  it.each([1, 3, 1000])('is read as calls, fed %i characters at a time', (size) => {
    expect(
      run(
        'Let me check the weather. <minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="location">Tokyo</parameter>\n<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>',
        size,
      ),
    ).toEqual({
      calls: [['get_weather', { location: 'Tokyo', days: 3 }]],
      text: 'Let me check the weather. \n\n', // layout around the call: not sent alone
    });
    expect(
      run(
        '<function_calls>\n<invoke name="get_weather">\n<parameter name="location">Paris</parameter>\n</invoke>\n<invoke name=\'read\'>\n<parameter name=\'filePath\'>/tmp/a.txt</parameter>\n</invoke>\n</function_calls>',
        size,
      ).calls,
    ).toEqual([
      ['get_weather', { location: 'Paris' }],
      ['read', { filePath: '/tmp/a.txt' }],
    ]);
    // Closing tags dropped, as DeepSeek is reported to do.
    expect(run('<invoke name="read"> <parameter name="filePath">/tmp/a.txt', size).calls).toEqual([
      ['read', { filePath: '/tmp/a.txt' }],
    ]);
  });

  it.each([1, 3, 1000])(
    'reads the Hermes-family variants <function name="NAME"> and <function_call>, fed %i characters at a time',
    (size) => {
      expect(run('Sure. <function name="bash">{"command": "ls"}</function> Done.', size)).toEqual({
        calls: [['bash', { command: 'ls' }]],
        text: 'Sure.  Done.',
      });
      expect(
        run("<function name='read'>\n<parameter=filePath>\n/tmp/a\n</parameter>\n</function>", size)
          .calls,
      ).toEqual([['read', { filePath: '/tmp/a' }]]);
      expect(
        run(
          '<function_call>{"name": "bash", "arguments": {"command": "ls"}}</function_call> ok',
          size,
        ),
      ).toEqual({ calls: [['bash', { command: 'ls' }]], text: ' ok' });
    },
  );

  // From the tests of a client-side Qwen3-Coder parser (minpeter/ai-sdk-tool-call-middleware):
  // the name written with `=` after invoke, and after call and tool, each closed by its own tag.
  it.each([1, 3, 1000])(
    'reads <invoke=NAME>, <call=NAME> and <tool=NAME>, fed %i characters at a time',
    (size) => {
      expect(
        run(
          '<tool_call><call=bash><parameter=command>ls</call><tool=read><parameter=filePath>/a</tool><invoke="get_weather"><parameter=location>Oslo</invoke></tool_call> ok',
          size,
        ),
      ).toEqual({
        calls: [
          ['bash', { command: 'ls' }],
          ['read', { filePath: '/a' }],
          ['get_weather', { location: 'Oslo' }],
        ],
        text: ' ok',
      });
      expect(
        run('<tool name="bash"><parameter name="command">id</parameter></tool>', size).calls,
      ).toEqual([['bash', { command: 'id' }]]);
    },
  );

  it('leaves an invoke of no active tool, and a named parameter outside a call, as text', () => {
    for (const prose of [
      'The <invoke name="launch"> tag is not ours.',
      'Nor <invoke=launch>, <call=launch> or <tool=launch>.',
      'Use the <tool> tag, </call> it, <call me> maybe </tool>.',
      'A <parameter name="x"> alone.',
      'The <function name="launch"> tag, and a <function_call> tag.',
    ])
      expect(run(prose, 1)).toEqual({ calls: [], text: prose });
  });
});

describe('dialect rewriting, property', () => {
  it('gives the same calls and text for any split of the content as for one chunk', () => {
    const piece = fc.constantFrom(
      '<parameter=bash>',
      '<parameter=command>',
      '<parameter=',
      '</parameter>',
      '</function>',
      '<function=read>',
      '<tool_call>',
      '</tool_call>',
      '\n',
      ' ',
      'ls',
      '<',
      'text',
      '<invoke name="read">',
      '<parameter name="filePath">',
      '</invoke>',
      '<invoke=bash>',
      '<call=read>',
      '</call>',
      '<tool=bash>',
      '</tool>',
      '<function name="bash">',
      '<function_call>',
      '</function_call>',
      '{"name": "bash", "arguments": {}}',
      '<tools>',
      '</tools>',
      '<function_calls>',
      '<|tool_call_begin|>',
      'functions.bash:0',
      '<|tool_call_argument_begin|>',
      '{"command": "id"}',
      '<|tool_call_end|>',
      '<｜tool▁call▁begin｜>',
      '<｜tool▁sep｜>',
      '<｜tool▁call▁end｜>',
    );
    const content = fc.array(piece, { maxLength: 14 }).map((a) => a.join(''));
    assertSameForAnySplit({
      text: content,
      read: (deltas) => decodeContent(schemas, deltas),
      numRuns: 500,
    });
  });
});

describe('calls in the reasoning', () => {
  it('are rescued in the other dialects too when the content holds none', () => {
    const decoder = new CompletionDecoder(schemas);
    const reasoning =
      'I should look it up: <invoke name="read"><parameter name="filePath">/tmp/a</parameter></invoke>';
    const events = [
      ...decoder.chunk({ choices: [{ index: 0, delta: { reasoning_content: reasoning } }] }),
      ...decoder.chunk({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }] }),
      ...decoder.end(),
    ];
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      expect.objectContaining({ name: 'read', arguments: { filePath: '/tmp/a' } }),
    ]);
  });
});

// Wrappers of other models' calls, from servers without their parsers (formats after vLLM's
// granite, phi4mini, hunyuan, jamba, minimax, seed_oss, longcat, internlm, apertus,
// llama_nemotron_json, command-r7b and llama4_pythonic parsers).
describe("other models' wrappers around calls", () => {
  const paris = { location: 'Paris' };
  const json = '{"name": "get_weather", "arguments": {"location": "Paris"}}';
  it.each([
    ['Granite', `<|tool_call|>[${json}]`],
    ['Phi-4-mini', `Sure.<|tool_call|>[${json}]<|/tool_call|>`],
    ['Hunyuan, Jamba', `<tool_calls>[${json}]</tool_calls>`],
    ['MiniMax-M1', `<tool_calls>\n${json}\n</tool_calls>`],
    [
      'Seed-OSS',
      '<seed:tool_call>\n<function=get_weather>\n<parameter=location>Paris</parameter>\n</function>\n</seed:tool_call>',
    ],
    ['LongCat', `<longcat_tool_call>${json}</longcat_tool_call>`],
    ['InternLM', `<|action_start|><|plugin|>\n${json}<|action_end|>`],
    ['Apertus', '<|tools_prefix|>[{"get_weather": {"location": "Paris"}}]<|tools_suffix|>'],
    ['Llama-Nemotron', `<TOOLCALL>[${json}]</TOOLCALL>`],
    [
      'Command R7B',
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"location": "Paris"}}]<|END_ACTION|>',
    ],
    ['Llama 4', '<|python_start|>[get_weather(location="Paris")]<|python_end|>'],
  ])('drops the markup of %s and reads its call', (_model, content) => {
    for (const size of [1, 4, 1000]) {
      const { calls, text } = run(content, size);
      expect(calls).toEqual([['get_weather', paris]]);
      expect(text.trim()).toBe(content.startsWith('Sure.') ? 'Sure.' : '');
    }
  });
});

// DeepSeek V3.2 from a server without its parser (after SGLang's and vLLM's deepseek_v32 tests).
describe("DeepSeek V3.2's DSML calls", () => {
  it.each([1, 5, 1000])('are read as the invoke dialect, fed %i characters at a time', (size) => {
    const dsml =
      'Let me look.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n' +
      '<｜DSML｜parameter name="location" string="true">Paris</｜DSML｜parameter>\n' +
      '<｜DSML｜parameter name="days" string="false">2</｜DSML｜parameter>\n' +
      '</｜DSML｜invoke>\n</｜DSML｜function_calls>';
    const { calls, text } = run(dsml, size);
    expect(calls).toEqual([['get_weather', { location: 'Paris', days: 2 }]]);
    expect(text.trim()).toBe('Let me look.');
  });
});
