import { runParser as run } from '../../../test/support/qwen-vectors.js';
import { ToolCallTextParser } from './tool-call-text.parser.js';
import { WAITING_MARKUP } from './text-scan.js';

/** When text and calls come out, fed a delta at a time: as soon as they are certain, no sooner. */
describe('per-delta rules', () => {
  it('holds back a partial start tag and releases a lone "<" (per-delta rules)', () => {
    const p = new ToolCallTextParser();
    expect(p.push('Let me look <tool')).toEqual([{ type: 'text', text: 'Let me look ' }]);
    const q = new ToolCallTextParser();
    expect(q.push('if a <')).toEqual([{ type: 'text', text: 'if a ' }]);
    expect(q.push(' b then stop')).toEqual([{ type: 'text', text: '< b then stop' }]);
  });

  it('releases at once a "<" that its own delta shows is not a tag, and holds only a last one', () => {
    const p = new ToolCallTextParser();
    expect(p.push('3 < 4, <b>x')).toEqual([{ type: 'text', text: '3 < 4, <b>x' }]);
    expect(p.push(' <<')).toEqual([{ type: 'text', text: ' <' }]);
    expect(p.push('<')).toEqual([{ type: 'text', text: '<' }]);
    expect(p.push('t')).toEqual([]);
    expect(p.push('o and <f')).toEqual([{ type: 'text', text: '<to and ' }]);
    expect(p.flush()).toEqual([{ type: 'text', text: '<f' }]);
  });

  it('emits a call as soon as it is complete and followed by another', () => {
    const p = new ToolCallTextParser();
    const events = p.push(
      '<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n<tool_call>',
    );
    expect(events.filter((e) => e.type === 'call')).toHaveLength(1);
  });

  it('emits a call fed a character at a time at the ">" of the next call\'s opener', () => {
    const p = new ToolCallTextParser();
    const first =
      '<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n';
    expect([...first].flatMap((c) => p.push(c))).toEqual([]);
    expect([...'<tool_call'].flatMap((c) => p.push(c))).toEqual([]);
    const calls = p.push('>').flatMap((e) => (e.type === 'call' ? [e.call] : []));
    expect(calls).toEqual([{ name: 'a', args: { x: '1' }, raw: '{"x":"1"}' }]);
  });

  it('holds a tag or a call opening that arrives a token at a time as it would whole', () => {
    const schemas = new Map([['f', { type: 'object', properties: { x: { type: 'integer' } } }]]);
    const rests = [
      ' and more',
      '\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call> ok',
      'function=f>\n<parameter=x>\n2\n</parameter>\n</function>\n</tool_call>',
      '=f>\n<parameter=x>\n3\n</parameter>\n</function>\n</tool_call>',
    ];
    for (const held of WAITING_MARKUP) {
      const p = new ToolCallTextParser(schemas);
      expect([...held].flatMap((c) => p.push(c))).toEqual([]);
      for (const rest of rests) {
        const text = held + rest;
        const whole = run([text], schemas);
        expect(run([...text], schemas)).toEqual(whole);
        expect(run([held.slice(0, 1), held.slice(1), ...rest], schemas)).toEqual(whole);
      }
    }
  });
});
