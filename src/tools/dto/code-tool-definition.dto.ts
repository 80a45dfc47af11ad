import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ToolFieldsDto } from './tool-fields.dto.js';

/** A Python code tool (seed 003), or a `before_model_callback` hook. */
export class CodeToolDefinitionDto extends ToolFieldsDto {
  @ApiProperty({
    enum: ['python', 'callback'],
    description:
      '"python": a tool the model can call; "callback": before_model_callback, run before every completion request',
  })
  type!: 'python' | 'callback';

  @ApiPropertyOptional({
    description: 'Python source defining the function (give this or "file")',
    example:
      "def get_last_user_utterance() -> str:\n    '''Returns what the user said last.'''\n    return context.user_content.parts[0].text",
  })
  code?: string;

  @ApiPropertyOptional({
    description: 'Path of a .py file, relative to the tools file (give this or "code")',
    example: 'tools/loyalty.py',
  })
  file?: string;

  @ApiPropertyOptional({
    description: "The function's name; when given it must match a function in the code",
    example: 'get_last_user_utterance',
  })
  name?: string;

  @ApiPropertyOptional({ description: 'Defaults to the docstring' })
  description?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Defaults to a JSON Schema derived from the signature, type hints and the Args: section of the docstring',
  })
  parameters?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: 'Per-call timeout in seconds; default LLM_TOOL_TIMEOUT_SECS',
    example: 5,
  })
  timeout_secs?: number;

  @ApiPropertyOptional({
    description:
      'Its code changes nothing (it computes, or only reads): its calls are not held for the user\'s approval after the model has read a result of an "untrusted" tool, as those of other code tools are',
    example: true,
  })
  safe?: boolean;
}
