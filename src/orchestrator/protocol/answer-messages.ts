/** The client's answers to a call waiting on it: its approval, its question, a client tool's result. */
import { IsBoolean, IsIn, IsNotEmpty, IsString, MaxLength, ValidateBy } from 'class-validator';
import { Optional } from '../../common/optional-field.js';

/** `{"type":"tool_confirm","id":"…","approved":true}`: the user's answer for a call awaiting it. */
export class ToolConfirmMessage {
  @IsIn(['tool_confirm'])
  type!: 'tool_confirm';

  @IsString({ message: 'tool_confirm needs the call\'s "id" string' })
  @IsNotEmpty({ message: 'tool_confirm needs the call\'s "id" string' })
  @MaxLength(200, { message: '"id" is longer than 200 characters' })
  id!: string;

  @IsBoolean({ message: 'tool_confirm needs "approved": true or false' })
  approved!: boolean;
}

/** A text answer's longest, and a list's most items: what no question needs more of. */
const ANSWER_MAX_CHARS = 10_000;
const ANSWER_MAX_ITEMS = 100;

const isText = (value: unknown) => typeof value === 'string' && value.length <= ANSWER_MAX_CHARS;

/**
 * `{"type":"tool_answer","id":"…","value":…}`: the user's answer to a call's question
 * (`tool_question`): a string, a number, a list of strings (choices ticked), or `null` when the
 * user would not say.
 */
export class ToolAnswerMessage {
  @IsIn(['tool_answer'])
  type!: 'tool_answer';

  @IsString({ message: 'tool_answer needs the call\'s "id" string' })
  @IsNotEmpty({ message: 'tool_answer needs the call\'s "id" string' })
  @MaxLength(200, { message: '"id" is longer than 200 characters' })
  id!: string;

  @ValidateBy({
    name: 'isAnswer',
    validator: {
      validate: (value: unknown) =>
        value === null ||
        isText(value) ||
        (typeof value === 'number' && Number.isFinite(value)) ||
        (Array.isArray(value) && value.length <= ANSWER_MAX_ITEMS && value.every(isText)),
      defaultMessage: () =>
        `tool_answer needs a "value": a string (up to ${ANSWER_MAX_CHARS} characters), a number, a list of up to ${ANSWER_MAX_ITEMS} strings, or null`,
    },
  })
  value!: string | number | string[] | null;
}

/**
 * `{"type":"client_tool_result","id":"…","result":…}` (any JSON) or `…,"error":"…"}`: what one
 * of the client's own tools gave for the call `id` of a `client_tool_call`.
 */
export class ClientToolResultMessage {
  @IsIn(['client_tool_result'])
  type!: 'client_tool_result';

  @IsString({ message: 'client_tool_result needs the call\'s "id" string' })
  @IsNotEmpty({ message: 'client_tool_result needs the call\'s "id" string' })
  @MaxLength(200, { message: '"id" is longer than 200 characters' })
  id!: string;

  @Optional()
  result?: unknown;

  @Optional()
  @IsString({ message: '"error" must be a string: what went wrong, for the model' })
  @MaxLength(10_000, { message: '"error" is longer than 10000 characters' })
  error?: string;
}
