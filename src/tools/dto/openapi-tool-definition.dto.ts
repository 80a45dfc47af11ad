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
      "The OpenAPI 3 document (JSON or YAML): a path on the engine, relative to the tools file ($refs to other files followed, never to the network), or an http(s) URL read when the tools are loaded (only the document's own #/ references followed)",
    example: 'specs/orders.yaml',
  })
  spec!: string;

  @ApiProperty({
    description:
      'The operation: its operationId, or "METHOD /path" as the document writes the path',
    example: 'getOrder',
  })
  operation!: string;

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
