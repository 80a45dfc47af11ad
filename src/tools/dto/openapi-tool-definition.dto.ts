import {
  ApiProperty,
  ApiPropertyOptional,
  IntersectionType,
  OmitType,
  PartialType,
  PickType,
} from '@nestjs/swagger';
import { OAuth2Dto } from './oauth2.dto.js';
import { ToolDefinitionDto } from './tool-definition.dto.js';

/**
 * An HTTP tool made from an operation of an OpenAPI 3 document: every field of an HTTP tool but
 * its url and method, which the operation gives, as it gives the description and parameters.
 */
/** `oauth2` of an OpenAPI tool: the token endpoint may come from the document. */
export class OpenApiOAuth2Dto extends IntersectionType(
  OmitType(OAuth2Dto, ['token_url'] as const),
  PartialType(PickType(OAuth2Dto, ['token_url'] as const)),
) {}

export class OpenApiToolDefinitionDto extends IntersectionType(
  OmitType(ToolDefinitionDto, ['type', 'url', 'method', 'name', 'oauth2'] as const),
  PartialType(PickType(ToolDefinitionDto, ['name'] as const)),
) {
  @ApiProperty({ enum: ['openapi'], description: 'An operation of an OpenAPI 3 document' })
  type!: 'openapi';

  @ApiProperty({
    description:
      "The OpenAPI 3 document (JSON or YAML; a Swagger 2.0 one is converted to OpenAPI 3.0 as it is read): a path on the engine, relative to the tools file ($refs to other files followed, never to the network), or an http(s) URL read when the tools are loaded (only the document's own #/ references followed)",
    example: 'specs/orders.yaml',
  })
  spec!: string;

  @ApiPropertyOptional({
    description:
      'The operation: its operationId, or "METHOD /path" as the document writes the path; required, unless the entry is for several operations (operations)',
    example: 'getOrder',
  })
  operation?: string;

  @ApiPropertyOptional({
    description:
      'Instead of operation: the entry stands for operations of the document, "*" for all of them (but the deprecated, and those it cannot make tools of, each logged), or those listed (operationIds or "METHOD /path"); each becomes a tool of the set (named prefix + its operationId, or its method and path: get_products_sku; the entry\'s other fields for all of them, api_key and oauth2 only where the operation\'s security takes them) when the tools are loaded, and is shown so by GET /api/tools. An operation the set has an entry of its own for (the same operation of the same document), or that an entry for operations before this one made, is left to that entry; one whose name another entry has is left out (a warning: give a prefix). Not with name, operation, description, parameters, body, query_arguments, header_arguments, query_styles or placeholder_styles',
    oneOf: [
      { type: 'string', enum: ['*'] },
      { type: 'array', items: { type: 'string' } },
    ],
    example: '*',
  })
  operations?: '*' | string[];

  @ApiPropertyOptional({
    description:
      "With operations: put before each tool's name (other characters than letters, digits, _ and - become _; a name is cut to 64 characters, and _2, _3 … tell apart two that come out the same)",
    pattern: '^[A-Za-z0-9_-]{1,48}$',
    example: 'shop_',
  })
  prefix?: string;

  @ApiPropertyOptional({
    description: 'With "operations": "*": only the operations the document tags with one of these',
    type: [String],
    example: ['orders'],
  })
  tags?: string[];

  @ApiPropertyOptional({
    description:
      'With "operations": "*": only the operations of these methods, ["GET"] for the reads alone (an assistant that may look things up, and change nothing)',
    type: [String],
    enum: ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'POST', 'PUT', 'PATCH', 'DELETE'],
    example: ['GET'],
  })
  methods?: string[];

  @ApiPropertyOptional({
    description:
      'With "operations": "*": the operations left out (operationIds or "METHOD /path"), the destructive ones a voice agent should never call, say; one the document lacks is refused (a name written wrong would leave in the operation meant)',
    type: [String],
    example: ['deleteAccount'],
  })
  exclude?: string[];

  @ApiPropertyOptional({
    description:
      "The server the requests go to, instead of the document's first (its variables at their defaults)",
    example: 'https://orders.internal/v1',
  })
  base_url?: string;

  @ApiPropertyOptional({
    description:
      'A key sent where the operation\'s security (or the document\'s) says: an apiKey scheme\'s header, query parameter or cookie, or an HTTP bearer scheme\'s Authorization. Usually a ${TOOL_SECRET_…} reference. Keys a requirement asks for together go by scheme name: {"appId": "…", "appKey": "…"}',
    oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }],
    example: '${TOOL_SECRET_WEATHER}',
  })
  api_key?: string | Record<string, string>;

  @ApiPropertyOptional({
    description:
      "As for HTTP tools; token_url and scope may be left out when the operation's security (or the document's) names an oauth2 scheme with a clientCredentials flow: its tokenUrl, and the scopes the requirement lists",
    type: OpenApiOAuth2Dto,
  })
  oauth2?: OpenApiOAuth2Dto;
}
