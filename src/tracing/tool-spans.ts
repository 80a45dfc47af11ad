/** A tool call's exported span: `execute_tool {name}`, and how the call went. Pure: no Nest import. */
import type { SpanRef } from '../common/trace-context.js';
import type { ToolOutcome } from '../tools/tool-executor.js';
import { toolFailure } from './span-attributes.js';
import type { Span, Spans } from './spans.js';

/** The span of call `call` of a tool of `kind` (http, mcp, python, client), under `parent`. */
export function toolSpan(
  spans: Spans | undefined,
  parent: SpanRef | undefined,
  call: { id: string; name: string },
  kind: string | undefined,
): Span | undefined {
  if (!parent || !spans) return undefined;
  return spans.child(`execute_tool ${call.name}`, parent, {
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': call.id,
      ...(kind !== undefined && { 'engine.tool.kind': kind }),
    },
  });
}

/** Ends a call's span with its outcome; none: the turn ended first (an interruption, no failure). */
export function endToolSpan(span: Span, outcome: ToolOutcome | undefined): void {
  if (!outcome) span.set({ 'engine.interrupted': true });
  else {
    if (outcome.cached) span.set({ 'engine.tool.cached': true });
    if (!outcome.ok) {
      const { type, message } = toolFailure(outcome.text);
      span.fail(type, message);
    }
  }
  span.end();
}
