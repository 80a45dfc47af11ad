import { ApiPropertyOptional } from '@nestjs/swagger';
import { PHRASE, PHRASE_LIST } from '../definition-schema.js';

/** Swagger text of the approval fields every kind of tool has. */
const CONFIRM_DOC =
  'Each call waits for the user\'s approval: the client gets a tool_confirm event and answers {"type":"tool_confirm","id":…,"approved":true|false}, or the user says or types a plain yes or no (TOOL_CONFIRM_TIMEOUT_SECS, TOOL_CONFIRM_YES, TOOL_CONFIRM_NO). "destructive" (HTTP, OpenAPI and MCP tools): only calls that may change something — not those of a safe tool (a GET, HEAD, OPTIONS or TRACE, or "safe": true), nor of an MCP tool its server marks read-only (readOnlyHint) or not destructive (destructiveHint: false), as MCP reads a tool with no marks; with "tools", each as its server marks it';
const CONFIRM_PROMPT_DOC =
  'With "confirm": true, the question put to the user for each call: sent as the tool_confirm event\'s "prompt" and spoken in voice sessions; {parameter} placeholders take the call\'s arguments (1 to 500 characters)';
const BACKGROUND_DOC =
  "Calls run in the background: the model reads at once that the call has started and goes on with the conversation; when the result comes, a turn of its own tells it (after the turn in progress, if any), or the user's next message carries it. For tools that take longer than a caller should wait in silence (a report, a booking). Not for callback, end_session or transfer_call tools";
/** Swagger text of `result_max_chars`, a field every kind of tool has. */
const ApiResultMaxChars = ApiPropertyOptional({
  description:
    'The longest result the model reads from this tool, in characters (a longer one is cut and marked); default LLM_TOOL_RESULT_MAX_CHARS. For the one tool whose results are long by nature (a document, a search page)',
  minimum: 1,
  example: 20000,
});
/** Swagger text of `wait_phrase`, a field every kind of tool has. */
const ApiWaitPhrase = ApiPropertyOptional({
  description:
    "Said in a voice turn that has said nothing yet while a call of this tool runs longer than SPEECH_TOOL_WAIT_MS, instead of SPEECH_TOOL_WAIT_PHRASE: one phrase, a list of phrases said in turn in each session, or an object of language codes and a phrase or list each (the session's language chooses; a language it lacks gets the general phrase). 1 to 200 characters each, at most 20 in a list",
  oneOf: [
    PHRASE,
    PHRASE_LIST,
    { type: 'object', additionalProperties: { oneOf: [PHRASE, PHRASE_LIST] } },
  ],
  example: {
    en: ['Let me look up your order.', 'Checking your order.'],
    it: 'Cerco il suo ordine.',
  },
});

/** Swagger text of `modalities`, a field every kind of tool has. */
const ApiModalities = ApiPropertyOptional({
  type: [String],
  enum: ['voice', 'text'],
  description: 'Hide the tool from sessions of other modalities',
  example: ['voice'],
});

/** The fields every kind of tool has (HTTP, code, MCP, OpenAPI) besides its name and arguments. */
export class ToolFieldsDto {
  @ApiResultMaxChars
  result_max_chars?: number;

  @ApiWaitPhrase
  wait_phrase?: string | string[] | Record<string, string | string[]>;

  @ApiModalities
  modalities?: ('voice' | 'text')[];

  @ApiPropertyOptional({
    description: CONFIRM_DOC,
    oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['destructive'] }],
    example: true,
  })
  confirm?: boolean | 'destructive';

  @ApiPropertyOptional({ description: CONFIRM_PROMPT_DOC, example: 'Delete item {id}?' })
  confirm_prompt?: string;

  @ApiPropertyOptional({ description: BACKGROUND_DOC, example: true })
  background?: boolean;

  @ApiPropertyOptional({
    description:
      "Called by the engine, with no arguments, at the start of each conversation's first turn that asks the model, before its first request: the model reads the call and its result as its own (tool_call and tool_result are sent), and answers from them a round sooner. For what the model would ask first in every conversation: the caller's record by their number (${session.user_number}), today's opening hours. HTTP, OpenAPI and code tools that take no required argument, without confirm, background or deferred; only in sessions offered the tool (their tools, assistant, modality); once per conversation (a resumed one is not called again)",
    example: true,
  })
  at_start?: boolean;

  @ApiPropertyOptional({
    description:
      "Arguments whose values the model may not supply itself, only pass on from what the user said, typed or keyed in the conversation (not a note, not a tool's result): an order number, an amount, an account. A call whose value the user did not give is not run, and the model reads that it must ask them (tool_result's model_error not_from_user). Matched as people and speech-to-text write values: letters and digits alone, accents and case aside, numbers said in words or digit by digit",
    type: [String],
    example: ['order_id', 'amount'],
  })
  user_given?: string[];

  @ApiPropertyOptional({
    description:
      'At most this many calls of the tool run in one conversation (a resumed one goes on counting); a further call is not run, and the model reads why. An HTTP or MCP call its backend did nothing of (never sent, or refused with an HTTP 4xx) is not counted. For tools that act and should not be made to act without end: a text message, a refund, a transfer (1 to 1000)',
    minimum: 1,
    maximum: 1000,
    example: 3,
  })
  max_calls_per_session?: number;

  @ApiPropertyOptional({
    description:
      'A call of this tool made again, with the same arguments, in a later round of the same turn runs again. Without it, a call of an HTTP, OpenAPI or MCP tool that acts (not "safe") that succeeded is not run a second time in a turn while no other call that acts has succeeded since: the model reads its result again (LLM_TOOL_REPEAT_CALLS). For tools whose answer changes from one call to the next: a dice roll, a status polled',
    example: true,
  })
  repeatable?: boolean;

  @ApiPropertyOptional({
    description:
      'Its results come from outside your trust: web pages, mail, documents, another party\'s API, text anyone may have written. Once the model has read one in a conversation (while it is in the history the model is sent), each call of a tool that acts — an HTTP, OpenAPI, MCP or code tool that is not safe (a code tool is safe only when it says so) — waits for the user\'s approval (tool_confirm), as with "confirm": true, so that instructions planted in what it read cannot make the agent act unasked. MCP tools: default true for a tool its server marks openWorldHint: true',
    example: true,
  })
  untrusted?: boolean;

  @ApiPropertyOptional({
    description:
      "Left out of the model's requests until a call of the set's tool_search tool finds it (then offered for as long as that result, or a call of it that ran, is in the history sent; or while it matches the user's latest words, with the search's prefetch): for a large set, whose every schema in every request would cost the model time and accuracy. A call of it before that is not run (its arguments were written without its schema) but finds it: offered from the next request on. MCP and OpenAPI entries: each of their tools",
    example: true,
  })
  deferred?: boolean;

  @ApiPropertyOptional({
    description:
      "With deferred: words a search finds the tool by besides its name, description and parameters, never sent to the model: the words callers use that the description lacks (reimbursement, money back), or another language's (rimborso). An OpenAPI operation's tags, and the title an MCP server gives a tool, are added. Refused on a tool that is not deferred",
    type: [String],
    example: ['reimbursement', 'money back', 'rimborso'],
  })
  keywords?: string[];
}
