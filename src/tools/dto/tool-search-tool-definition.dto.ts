import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DEFAULT_MAX_RESULTS, TOOL_SEARCH_DESCRIPTION } from '../tool-search.js';
import { ToolFieldsDto } from './tool-fields.dto.js';

/** The engine's own tool with which the model finds the set's deferred tools. */
export class ToolSearchToolDefinitionDto extends ToolFieldsDto {
  @ApiProperty({
    enum: ['tool_search'],
    description:
      'Run by the engine: the model calls it with {"query": "a few words of what the user wants done"}, and reads the deferred tools (those marked "deferred": true) that match best, by name, keywords, description and parameters, each with its description\'s first sentence; those are offered from the next request on, in the same turn and the turns after, for as long as that result (or a call of the tool that ran) is in the history sent. A set with deferred tools must have one',
  })
  type!: 'tool_search';

  @ApiProperty({
    description: 'Function name the model calls',
    example: 'find_tools',
    pattern: '^[A-Za-z0-9_-]{1,64}$',
  })
  name!: string;

  @ApiPropertyOptional({
    description:
      'What the model reads to decide when to call it; say what kinds of tool it finds ("billing, shipping and returns")',
    default: TOOL_SEARCH_DESCRIPTION,
  })
  description?: string;

  @ApiPropertyOptional({
    description: 'How many tools one search names at most',
    minimum: 1,
    maximum: 20,
    default: DEFAULT_MAX_RESULTS,
  })
  max_results?: number;

  @ApiPropertyOptional({
    description:
      "How many deferred tools matching the user's last three messages each request offers as well, found by the engine with no search round of the model's (a second or so less for a caller to wait); 0: none. Each turn's words change the request's tools, and with them the start of the prompt the LLM server's prefix cache keeps",
    minimum: 0,
    maximum: 10,
    default: 0,
  })
  prefetch?: number;
}
