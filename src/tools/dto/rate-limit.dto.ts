import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A tool's `rate_limit` (see rate-table.ts). */
export class RateLimitDto {
  @ApiProperty({
    description: 'At most this many requests begin…',
    minimum: 1,
    maximum: 100000,
    example: 10,
  })
  calls!: number;

  @ApiProperty({
    description: '…in any window of this many seconds',
    minimum: 1,
    maximum: 86400,
    example: 1,
  })
  per_secs!: number;

  @ApiPropertyOptional({
    description:
      "The tools that name the same group (with the same calls and per_secs) count their calls together: an API's quota, whichever of its tools calls it. Without, each tool counts its own",
    pattern: '^[A-Za-z0-9_.:-]{1,64}$',
    example: 'crm',
  })
  group?: string;
}

/** Swagger text of `rate_limit`, a field of HTTP, MCP and OpenAPI tools. */
export const ApiRateLimit = ApiPropertyOptional({
  description:
    "At most `calls` calls of this tool begin in any window of `per_secs` seconds, across the engine (its processes, and the replicas sharing a Redis session store): for an API with a quota of requests per second, minute or hour. Further calls wait, first come first served, for at most the tool's timeout; one that would wait longer is not sent (the model reads so at once). A retry waits for a moment of its own too. Tools that name the same `group` share the limit",
  type: RateLimitDto,
});
