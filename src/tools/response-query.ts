import { compile, TreeInterpreter } from '@jmespath-community/jmespath';
import { MAX_JSON_DEPTH, nestedDeeper } from '../common/nesting.js';

type ExpressionNode = ReturnType<typeof compile>;

/**
 * A tool's `response_query`: a JMESPath expression that picks, from a JSON response, what the
 * model needs ("current_condition[0].{temp: temp_C, sky: weatherDesc[0].value}"), so that a
 * large payload costs neither tokens nor the time to read them, nor is cut at
 * LLM_TOOL_RESULT_MAX_CHARS before the part that matters. Pure: no Nest import.
 */
export interface ResponseQuery {
  expression: string;
  ast: ExpressionNode;
}

/** The compiled query, or the parser's reason why `expression` is not JMESPath. */
export function compileQuery(expression: string): ResponseQuery | { error: string } {
  try {
    return { expression, ast: compile(expression) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * What the model reads of a successful response `body` through `query`: the selection as JSON
 * (a string as it is). When the body is not JSON, the query fails on it, or it selects nothing
 * (null) or something too deep to write, the body is handed on whole rather than lost, with the `problem` for the log.
 */
export function applyQuery(query: ResponseQuery, body: string): { text: string; problem?: string } {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return { text: body, problem: 'the response is not JSON' };
  }
  let selected: unknown;
  try {
    selected = TreeInterpreter.search(query.ast, data as never);
  } catch (error) {
    return { text: body, problem: (error as Error).message };
  }
  if (selected === null) return { text: body, problem: 'it selects nothing (null)' };
  if (nestedDeeper(selected, MAX_JSON_DEPTH))
    return {
      text: body,
      problem: `what it selects is nested more than ${MAX_JSON_DEPTH} levels deep`,
    };
  return { text: typeof selected === 'string' ? selected : JSON.stringify(selected) };
}

/**
 * What a tool's `error_query` finds wrong in a successful (2xx) response `body`: the error a
 * service answers with HTTP 200 (GraphQL's `errors`, JSON-RPC's `error`, `{"success": false}`).
 * Its selection when JMESPath holds it true (not null, false, "", [] or {}): a string as it is, other
 * values as JSON, and a plain `true` (a condition, `success == \`false\``) the whole body; undefined
 * when it holds nothing true, or the body is not JSON or the query fails on it (the answer then
 * stands as the service gave it).
 */
export function serviceError(query: ResponseQuery, body: string): string | undefined {
  let selected: unknown;
  try {
    selected = TreeInterpreter.search(query.ast, JSON.parse(body) as never);
  } catch {
    return undefined;
  }
  if (!truthy(selected)) return undefined;
  if (selected === true) return body;
  return typeof selected === 'string' ? selected : JSON.stringify(selected);
}

/** JMESPath's truth: all but null, false, and an empty string, list or object. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
