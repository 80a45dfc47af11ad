import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { LatencyMeasure, LatencySummary } from '../turn-latency.js';

/** An open session, as `GET /api/sessions` lists it. */
export class SessionSummaryDto {
  @ApiProperty({ example: '3f0c9d2e-5b7a-4c1e-9a51-0d6f3e2b8c47' })
  session_id!: string;

  @ApiProperty({ description: 'When its connection opened', example: '2026-12-02T09:14:05.120Z' })
  opened_at!: string;

  @ApiProperty({
    description:
      'When the conversation began: its first connection (earlier than opened_at for a resumed session), or the answer of a call the agent placed',
    example: '2026-12-02T09:12:41.003Z',
  })
  started_at!: string;

  @ApiPropertyOptional({
    description:
      "When its time limit ends it (SESSION_MAX_SECS, or the session's max_secs); absent: no limit",
    example: '2026-12-02T09:27:41.003Z',
  })
  ends_at?: string;

  @ApiProperty({ description: 'A turn is in progress', example: false })
  busy!: boolean;

  @ApiProperty({ enum: ['text', 'voice'], example: 'voice' })
  modality!: string;

  @ApiProperty({
    description:
      'Where the conversation happens, as its client said (session.update "channel"): "twilio" for /twilio\'s calls, "websocket" by default',
    example: 'twilio',
  })
  channel!: string;

  @ApiProperty({ example: 'en' })
  language!: string;

  @ApiProperty({ description: "The user's messages so far (its turns)", example: 3 })
  turns!: number;

  @ApiProperty({ description: 'Messages of its history (user, assistant, tool)', example: 8 })
  messages!: number;

  @ApiPropertyOptional({
    description:
      'Tokens of all its turns (resumed ones too), when the LLM server reports usage (see "Token usage" in the README)',
    example: { prompt_tokens: 5120, completion_tokens: 310, total_tokens: 5430 },
  })
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };

  @ApiPropertyOptional({
    description:
      'How long its user has waited for its answers on this connection, by measure (first_text_ms, first_audio_ms, stt_ms, llm_first_ms, tools_ms, tts_first_ms; see "A turn\'s timings" in the README): the median, the 90th percentile, the longest and how many turns had it; absent before its first answer',
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: {
        p50: { type: 'integer' },
        p90: { type: 'integer' },
        max: { type: 'integer' },
        turns: { type: 'integer' },
      },
      required: ['p50', 'p90', 'max', 'turns'],
    },
    example: {
      first_text_ms: { p50: 420, p90: 910, max: 1310, turns: 6 },
      first_audio_ms: { p50: 780, p90: 1450, max: 2210, turns: 6 },
    },
  })
  latency?: Partial<Record<LatencyMeasure, LatencySummary>>;

  @ApiPropertyOptional({
    description:
      "The assistant holding the conversation: the one a handoff tool gave it to, a client's session.update or a line's ?agent= chose, or an administrator gave it (see \"Handing the conversation to another assistant\" in the README); absent: the engine's own",
    example: 'billing',
  })
  agent?: string;
}

export class SessionListDto {
  @ApiProperty({ example: true })
  ok!: boolean;

  @ApiProperty({ example: 1 })
  count!: number;

  @ApiProperty({ type: [SessionSummaryDto] })
  sessions!: SessionSummaryDto[];
}

/** One open session: its settings and conversation. */
export class SessionDetailDto extends SessionSummaryDto {
  @ApiProperty({ example: true })
  ok!: boolean;

  @ApiProperty({
    description:
      "The session's settings (session.update); of its variables only the names, whose values may be the user's tokens",
    example: {
      modality: 'voice',
      language: 'en',
      timezone: 'America/New_York',
      voice: '',
      tts: true,
      vad_silence_ms: 700,
      vad_unfinished_wait_ms: 2000,
      idle_secs: 8,
      max_secs: null,
      channel: 'twilio',
      input_audio_format: 'g711_ulaw',
      output_audio_format: 'g711_ulaw',
      instructions: '',
      tools: null,
      variables: ['customer_id'],
    },
  })
  settings!: Record<string, unknown>;

  @ApiProperty({
    description:
      'The conversation as the model reads it, in OpenAI chat form: user, assistant (with its tool_calls) and tool messages; the system prompt is not in it',
    type: 'array',
    items: { type: 'object' },
    example: [
      { role: 'user', content: "What's the weather in Rome?" },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'a1b2c3d4e',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'a1b2c3d4e', content: 'Rome: ☀️ +21°C' },
      { role: 'assistant', content: 'It is sunny in Rome, 21 degrees.' },
    ],
  })
  history!: unknown[];

  @ApiPropertyOptional({
    description:
      'What its bounded history dropped, summarised by the model (LLM_HISTORY_SUMMARY); absent when nothing was',
    example: 'The user is Ada Rossi, booking ABC-123 for two on 12 March.',
  })
  summary?: string;
}

/** What an operation on one open session answers: done, on that session. */
export class SessionDoneDto {
  @ApiProperty({ example: true })
  ok!: true;

  @ApiProperty({ example: '3f0c9d2e-5b7a-4c1e-9a51-0d6f3e2b8c47' })
  session_id!: string;
}

export class SessionClosedDto extends SessionDoneDto {
  @ApiProperty({
    description: 'Its connection was closed (code 4002) and the session cannot be resumed',
    example: true,
  })
  closed!: boolean;
}
