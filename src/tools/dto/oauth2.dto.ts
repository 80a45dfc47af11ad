import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OAuth 2.0 client credentials (RFC 6749 §4.4): where an HTTP or MCP tool's bearer token comes from. */
export class OAuth2Dto {
  @ApiProperty({
    description:
      'The token endpoint (http or https, written out: no placeholder or variable); never an address where clouds serve instance metadata',
    example: 'https://idp.example.com/oauth2/token',
  })
  token_url!: string;

  @ApiProperty({
    description: 'The client id; may refer to ${TOOL_SECRET_*}',
    example: 'voice-agent',
  })
  client_id!: string;

  @ApiProperty({
    description: 'The client secret, usually ${TOOL_SECRET_*}; masked in what the model reads',
    example: '${TOOL_SECRET_IDP_CLIENT_SECRET}',
  })
  client_secret!: string;

  @ApiPropertyOptional({ description: 'The scope asked for', example: 'orders.read' })
  scope?: string;

  @ApiPropertyOptional({
    description: 'The audience asked for (Auth0 and others)',
    example: 'https://api.example.com',
  })
  audience?: string;

  @ApiPropertyOptional({
    description:
      'How the client authenticates to the token endpoint: HTTP Basic (client_secret_basic), or client_id and client_secret in the form (client_secret_post)',
    enum: ['basic', 'body'],
    default: 'basic',
  })
  client_auth?: 'basic' | 'body';
}

/** Swagger text of `oauth2`, a field of HTTP and MCP tools. */
export const ApiOAuth2 = ApiPropertyOptional({
  description:
    'A bearer token for every request, from this OAuth 2.0 client-credentials client: got from its token endpoint when first needed, shared by the calls of every tool of the same client, got anew before it expires and when the API answers 401 (the request is then sent once more). The token is masked in what the model reads. Not with an Authorization header in headers, nor with a placeholder in the host of url',
  type: OAuth2Dto,
});
