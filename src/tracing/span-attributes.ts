/**
 * What the spans of a completion and of a tool call say (OpenTelemetry's GenAI conventions where
 * they have a name for it). Never arguments, results or user text. Pure: no Nest import.
 */
import type { Attributes } from '@opentelemetry/api';
import type { LlmUsage } from '../llm/llm.types.js';

/** The status message of a failed call is at most this long. */
const MAX_MESSAGE = 200;

/**
 * Why a call failed, from the text the model read (seed §6's texts): a type, and the text's first
 * line without what may hold data — an HTTP error's body, arguments that were not JSON.
 */
export function toolFailure(text: string): { type: string; message: string } {
  const line = text.split('\n', 1)[0]!.replace(/^Error: /, '');
  const http = /^HTTP (\d{3})(.*?)(?: — |$)/.exec(line);
  if (http) return { type: http[1]!, message: `HTTP ${http[1]}${http[2]}`.slice(0, MAX_MESSAGE) };
  if (line.startsWith('unknown tool ')) return { type: 'unknown_tool', message: line };
  if (line.startsWith('invalid HTTP method ')) return { type: 'invalid_method', message: line };
  const detail = line.replace(/^tool request failed: /, '');
  if (detail.startsWith('arguments are not a JSON object'))
    return { type: 'invalid_arguments', message: 'arguments are not a JSON object' };
  if (detail.startsWith('not sent: ') || detail.startsWith('not run: '))
    return { type: 'not_sent', message: detail.slice(0, MAX_MESSAGE) };
  return { type: 'tool_error', message: detail.slice(0, MAX_MESSAGE) };
}

/** A completion's outcome: why it finished and the tokens it took. */
export function completionAttributes(finishReason: string | null, usage?: LlmUsage): Attributes {
  return {
    ...(finishReason !== null && { 'gen_ai.response.finish_reasons': [finishReason] }),
    ...(usage?.prompt_tokens !== undefined && { 'gen_ai.usage.input_tokens': usage.prompt_tokens }),
    ...(usage?.completion_tokens !== undefined && {
      'gen_ai.usage.output_tokens': usage.completion_tokens,
    }),
  };
}
