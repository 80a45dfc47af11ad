/** What a tool definition's fields expect, for messages that name the field and why it failed. */
import type { ErrorObject } from 'ajv';
import { closest, distance } from 'fastest-levenshtein';

/**
 * The fields of `entry` its kind does not know (a misspelt `client_certifcate` would otherwise go
 * unnoticed), each with the known field it is likely meant for. Fields starting with `_` or `x-`
 * are the writer's own (comments, extensions) and are let be.
 */
export function unknownFields(
  entry: object,
  schema: { properties: object },
): { field: string; meant?: string }[] {
  const known = Object.keys(schema.properties);
  return Object.keys(entry)
    .filter((field) => !known.includes(field) && !/^(_|x-)/i.test(field))
    .map((field) => {
      // `timeout` for `timeout_secs`; else a spelling a few letters off.
      const longer = known.find((k) => k.startsWith(`${field}_`));
      const near = closest(field, known);
      const meant =
        longer ?? (distance(field, near) <= Math.max(2, Math.floor(field.length / 4)) ? near : '');
      return meant ? { field, meant } : { field };
    });
}

export const FIELD_HINTS: Record<string, string> = {
  name: 'a string of letters, digits, "_" or "-" (1 to 64 characters)',
  url: 'an absolute http:// or https:// URL',
  description: 'a string',
  parameters: 'a JSON Schema object',
  method: 'a non-empty string',
  headers: 'an object whose values are strings',
  type: '"http", "python", "callback", "mcp", "openapi", "end_session", "transfer_call", "handoff" or "tool_search"',
  to: 'a phone number in E.164 form ("+15550100") or a SIP address ("sip:desk@pbx.example.com")',
  destinations:
    'an object of names (letters, digits, spaces, "_", "-") and phone numbers in E.164 form or SIP addresses, 1 to 100 of them',
  spec: 'a path to an OpenAPI 3 document (JSON or YAML), relative to the tools file, or its http(s) URL',
  operation: 'an operationId, or "METHOD /path" as the document writes the path',
  base_url: 'an absolute http:// or https:// URL',
  tool: "the tool's name on the MCP server (1 to 128 characters)",
  command: 'the program that runs the MCP server (1 to 4096 characters)',
  args: "an array of strings: the command's arguments",
  env: 'an object of environment variable names and string values',
  cwd: 'a directory, relative to the tools file',
  code: 'a non-empty string of Python code',
  file: 'a path to a .py file, relative to the tools file',
  timeout_secs: 'a number of seconds greater than 0',
  retries: 'an integer from 0 to 5',
  response_query: 'a JMESPath expression of 1 to 2000 characters',
  error_query: 'a JMESPath expression of 1 to 2000 characters',
  safe: 'true or false',
  cache_secs: 'a number of seconds greater than 0, at most 86400',
  idempotency_header: 'a header name, e.g. "Idempotency-Key"',
  query_styles:
    'an object of argument names and {"style": "form", "spaceDelimited", "pipeDelimited" or "deepObject", "explode": true or false}',
  placeholder_styles:
    'an object of argument names and {"style": "simple", "label" or "matrix", "explode": true or false}',
  query_arguments: 'a list of argument names, each once',
  header_arguments: 'a list of argument names, each once',
  max_concurrency: 'an integer from 1 to 10000',
  rate_limit:
    'an object with calls (an integer from 1 to 100000) and per_secs (an integer of seconds from 1 to 86400), e.g. {"calls": 10, "per_secs": 1}, and optionally group (1 to 64 letters, digits, _ . : -)',
  client_certificate:
    'an object with cert_file and key_file (PEM files, relative to the tools file), and passphrase for an encrypted key',
  body: 'the request body: an object or array (JSON, or a form), or a text, with {argument} places',
  oauth2:
    'an object with token_url (an http(s) URL), client_id and client_secret, and optionally scope, audience and client_auth ("basic" or "body")',
  result_max_chars: 'an integer from 1 to 10000000',
  wait_phrase:
    'a phrase of 1 to 200 characters, a list of up to 20 such phrases said in turn, or an object of language codes and a phrase or list each ({"en":["Let me look.","One moment."],"it":"Controllo."})',
  modalities: 'a non-empty array of "voice" and/or "text"',
  confirm: 'true or false (HTTP, OpenAPI and MCP tools: also "destructive")',
  confirm_prompt: 'a question of 1 to 500 characters, with {parameter} placeholders',
  background: 'true or false',
  at_start: 'true or false',
  user_given: 'a list of argument names, each once',
  max_calls_per_session: 'an integer from 1 to 1000',
  repeatable: 'true or false',
  untrusted: 'true or false',
  deferred: 'true or false',
  keywords: 'an array of 1 to 100 words or phrases (1 to 200 characters each)',
  max_results: 'an integer from 1 to 20',
  prefetch: 'an integer from 0 to 10',
  per_session: 'true or false',
  max_sessions: 'an integer from 1 to 10000',
  sampling: 'true or false',
  sampling_max_tokens: 'an integer from 1 to 32768',
  tools:
    '"*" (every tool the MCP server lists) or an array of the names it lists them by, each once',
  agent: 'a name of 1 to 64 letters, digits, spaces, "_", "." or "-"',
  instructions: 'a string of at most 20000 characters',
  voice: "a voice of the TTS engine (TTS_VOICE's kind), 1 to 200 characters",
  language: 'a language code such as en, it, es or pt-br',
  prefix: 'letters, digits, "_" or "-", 1 to 48, put before the names of the tools',
  read_only: 'true or false',
  exclude: 'an array of names (1 to 1000), each once',
  operations:
    '"*" (every operation of the document) or an array of operationIds or "METHOD /path", each once',
  tags: "an array of the tags of the document's operations (1 to 100)",
  methods:
    'an array of HTTP methods in capitals, each once: GET, HEAD, OPTIONS, TRACE, POST, PUT, PATCH or DELETE',
};

/**
 * A field and why it failed, from Ajv's first error, for a message naming the field; `hints`
 * say what each field expects (a tool definition's by default).
 */
export function describe(
  error: ErrorObject,
  hints: Record<string, string> = FIELD_HINTS,
): { field: string; why: string } {
  const path = error.instancePath.split('/').filter(Boolean);
  const top = path[0] ?? '';
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    // Inside an object field (`oauth2`), the hint is the object's.
    const field = [...path, missing].join('.');
    return {
      field,
      why: `is required: expected ${hints[path.length ? top : missing] ?? 'a value'}`,
    };
  }
  const hint = top === 'headers' && path.length > 1 ? 'a string' : (hints[top] ?? error.message);
  return { field: path.join('.'), why: `is invalid: expected ${hint}` };
}
