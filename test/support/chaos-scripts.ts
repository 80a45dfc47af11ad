/** The chaos suite's answers (test/support/chaos.ts' `Answer`) as the fake LLM's scripts. */
import { sseChunk, sseStructuredCalls, sseText, type Script } from './fake-llm.js';
import { pieces, xmlCall } from './turn-harness.js';
import type { Answer } from './chaos.js';

/** The fake LLM's script for one answer, with call ids unique over the run. */
export function scriptOf(a: Answer, ids: () => string): Script {
  switch (a.kind) {
    case 'text':
      return { ...sseText(a.words), delayMs: a.delayMs };
    case 'xml': {
      const text =
        a.before + a.calls.map(([name, c]) => xmlCall(name, { city: c })).join('\n') + a.after;
      return { ...sseText(pieces(text, a.size), 'stop'), delayMs: 1 };
    }
    case 'hermes': {
      const json = JSON.stringify({ name: a.name, arguments: { city: a.city } });
      const harmony = `<|channel|>analysis<|message|>Call it.<|end|><|start|>assistant<|channel|>commentary to=functions.${a.name} <|constrain|>json<|message|>${JSON.stringify({ city: a.city })}<|call|>`;
      const text = {
        block: `<tool_call>\n${json}\n</tool_call>`,
        bare: `Let me check. ${json}`,
        harmony,
      }[a.form];
      return sseText(pieces(text, 4));
    }
    case 'cut_call': {
      const [name, city] = a.call;
      const [role, half] = sseStructuredCalls([{ id: ids(), name, arguments: { city } }]).pieces;
      return { kind: 'sse', pieces: [role!, half!, sseChunk({}, 'length'), 'data: [DONE]\n\n'] };
    }
    case 'structured': {
      const script = sseStructuredCalls(
        a.calls.map(([name, c], i) => ({
          id: a.numbered ? `call_${i}` : ids(),
          name,
          arguments: { city: c },
        })),
      );
      if (a.thought) script.pieces.splice(1, 0, sseChunk({ reasoning_content: a.thought }));
      return script;
    }
    case 'stream_error':
      return {
        kind: 'sse',
        pieces: [
          ...sseText(a.words).pieces.slice(0, -2),
          'data: {"error":{"message":"overloaded","code":500}}\n\n',
        ],
      };
    case 'status':
      return { kind: 'status', status: a.status, body: '{"error":{"message":"fake refusal"}}' };
    case 'cut':
      return { kind: 'sse', pieces: sseText(a.words).pieces.slice(0, -2) };
    case 'empty':
      return sseText([]);
    case 'reply': {
      const toolCalls = a.call && [
        {
          id: ids(),
          type: 'function',
          function: { name: a.call[0], arguments: JSON.stringify({ city: a.call[1] }) },
        },
      ];
      return {
        kind: 'json',
        body: {
          id: 'x',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              finish_reason: toolCalls ? 'tool_calls' : 'stop',
              message: {
                role: 'assistant',
                content: a.text,
                ...(toolCalls && { tool_calls: toolCalls }),
              },
            },
          ],
        },
      };
    }
  }
}
