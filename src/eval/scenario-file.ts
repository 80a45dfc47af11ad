/**
 * A scenarios file for `npm run eval`: conversations to hold with a running engine over `/ws` and
 * what each turn must show (the calls the model makes, its answer, how soon). Pure: no Nest import.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readTurnAudio } from './turn-audio.js';
import { parseToolsFile } from '../tools/tools-file-text.js';

/** A call the turn must make: its tool, and the arguments it must have (others may come too). */
export interface ExpectedCall {
  name: string;
  arguments?: Record<string, unknown>;
}

export interface TurnExpectation {
  /** Calls the turn must make, in this order (others may come between); `[]`: no call at all. */
  tool_calls?: ExpectedCall[];
  /** A regular expression (case ignored) the answer's text must match. */
  text?: string;
  /** One it must not match. */
  text_not?: string;
  /** The error code the turn must end with (`llm_failed`); without it, an error fails the turn. */
  error?: string;
  /** The first text within this long after the user's text was sent. */
  max_first_text_ms?: number;
  /** The whole turn within this long. */
  max_total_ms?: number;
  /** A regular expression (case ignored) what the engine heard of an `audio` turn must match. */
  transcript?: string;
  /** The answer's first audio within this long after the user's turn was given (voice sessions). */
  max_first_audio_ms?: number;
  /** At most this many completion requests to the model (its rounds: each call's result read is one more). */
  max_llm_requests?: number;
}

export interface ScenarioTurn {
  /** The user's words (`user_text`); or, instead, one of: */
  user?: string;
  /** A file of the user's speech (WAV, or 16 kHz 16-bit mono PCM), its path from the file's. */
  audio?: string;
  /** What the agent says as it is (`say`): a greeting, a notice. */
  say?: string;
  /** What the application tells the model (`note`), answered by a turn with `respond`. */
  note?: string;
  respond?: boolean;
  expect?: TurnExpectation;
  /** The answer to each call awaiting approval (`confirm` tools); true when absent. */
  approve?: boolean;
  /** The client's answers to its own tools' calls (`client_tools`), by tool name. */
  client_results?: Record<string, unknown>;
  /** The user's answers to the calls' questions, in turn; `null` ("would not say") once spent. */
  answers?: unknown[];
}

export interface Scenario {
  name: string;
  /** `session.update` fields sent before the first turn (instructions, variables, tools…). */
  session?: Record<string, unknown>;
  turns: ScenarioTurn[];
  /** How many times the conversation is held (the file's `runs` when absent). */
  runs?: number;
  /** How many of its runs must pass (all when absent). */
  min_passes?: number;
}

export interface ScenarioFile {
  runs: number;
  scenarios: Scenario[];
  /** Each `audio` turn's speech as the engine takes it (PCM, 16 kHz), read with the file. */
  audio: ReadonlyMap<ScenarioTurn, Buffer>;
}

/** What a turn gives the engine: the field that says it. */
export const TURN_KINDS = ['user', 'audio', 'say', 'note'] as const;

const TEXT = { type: 'string', minLength: 1, maxLength: 100_000 };
const REGEX = { type: 'string', minLength: 1, maxLength: 1000 };
const MS = { type: 'integer', minimum: 1, maximum: 3_600_000 };
const RUNS = { type: 'integer', minimum: 1, maximum: 1000 };

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['scenarios'],
  properties: {
    runs: RUNS,
    scenarios: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'turns'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          session: { type: 'object' },
          runs: RUNS,
          min_passes: RUNS,
          turns: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              properties: {
                user: TEXT,
                audio: { type: 'string', minLength: 1, maxLength: 4096 },
                say: TEXT,
                note: TEXT,
                respond: { type: 'boolean' },
                approve: { type: 'boolean' },
                client_results: { type: 'object' },
                answers: { type: 'array' },
                expect: {
                  type: 'object',
                  additionalProperties: false,
                  properties: {
                    tool_calls: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: ['name'],
                        properties: {
                          name: { type: 'string', minLength: 1 },
                          arguments: { type: 'object' },
                        },
                      },
                    },
                    text: REGEX,
                    text_not: REGEX,
                    error: { type: 'string', minLength: 1 },
                    max_first_text_ms: MS,
                    max_total_ms: MS,
                    transcript: REGEX,
                    max_first_audio_ms: MS,
                    max_llm_requests: { type: 'integer', minimum: 0, maximum: 100 },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** A scenarios file that cannot be used; the message names the file, scenario, turn and field. */
export class ScenarioFileError extends Error {}

let validate: ReturnType<Ajv['compile']> | undefined;

/** `/scenarios/1/turns/0/expect/text` → `scenario #1 ("name"): turn #0: field 'expect.text'`. */
function placeOf(error: ErrorObject, data: { scenarios?: { name?: unknown }[] }): string {
  const parts = error.instancePath.split('/').slice(1);
  const missing = error.keyword === 'required' ? [String(error.params.missingProperty)] : [];
  const unknown =
    error.keyword === 'additionalProperties' ? [String(error.params.additionalProperty)] : [];
  const place: string[] = [];
  let at = 0;
  if (parts[0] === 'scenarios' && parts[1] !== undefined) {
    const name = data.scenarios?.[Number(parts[1])]?.name;
    place.push(
      `scenario #${parts[1]}${typeof name === 'string' ? ` (${JSON.stringify(name)})` : ''}`,
    );
    at = 2;
    if (parts[2] === 'turns' && parts[3] !== undefined) {
      place.push(`turn #${parts[3]}`);
      at = 4;
    }
  }
  const field = [...parts.slice(at), ...missing, ...unknown].join('.');
  if (field) place.push(`field '${field}'`);
  const what =
    error.keyword === 'required'
      ? 'is missing'
      : error.keyword === 'additionalProperties'
        ? 'is not a field of a scenarios file'
        : (error.message ?? 'is invalid');
  return `${place.join(': ')}${place.length ? ' ' : ''}${what}`;
}

/** The file's scenarios, checked: its shape, and each regular expression. */
export async function parseScenarios(text: string, source: string): Promise<ScenarioFile> {
  let data: unknown;
  try {
    // JSON, or YAML for a file named `….yaml` or `….yml`, read as tools files are.
    data = await parseToolsFile(text, source);
  } catch (error) {
    throw new ScenarioFileError((error as Error).message);
  }
  validate ??= new Ajv({ allErrors: false, strict: false }).compile(SCHEMA);
  if (!validate(data))
    throw new ScenarioFileError(`${source}: ${placeOf(validate.errors![0]!, data as object)}`);
  const file = data as { runs?: number; scenarios: Scenario[] };
  const audio = new Map<ScenarioTurn, Buffer>();
  // A file several turns say (a greeting, a "yes") is read once.
  const files = new Map<string, Promise<Buffer>>();
  for (const [s, scenario] of file.scenarios.entries()) {
    const runs = scenario.runs ?? file.runs ?? 1;
    const named = `${source}: scenario #${s} (${JSON.stringify(scenario.name)})`;
    if ((scenario.min_passes ?? 0) > runs)
      throw new ScenarioFileError(`${named}: field 'min_passes' is more than its ${runs} run(s)`);
    for (const [t, turn] of scenario.turns.entries()) {
      const at = `${named}: turn #${t}`;
      checkTurn(turn, at);
      if (turn.audio === undefined) continue;
      try {
        const path = resolve(dirname(source), turn.audio);
        if (!files.has(path)) files.set(path, readTurnAudio(path));
        audio.set(turn, await files.get(path)!);
      } catch (error) {
        throw new ScenarioFileError(
          `${at}: field 'audio': ${JSON.stringify(turn.audio)} ${(error as Error).message}`,
        );
      }
    }
  }
  return { runs: file.runs ?? 1, scenarios: file.scenarios, audio };
}

/** What the schema cannot say of a turn: one kind, the fields that kind has, its patterns. */
function checkTurn(turn: ScenarioTurn, at: string): void {
  const kinds = TURN_KINDS.filter((kind) => turn[kind] !== undefined);
  if (kinds.length !== 1)
    throw new ScenarioFileError(
      `${at}: give one of "user" (the user's words), "audio" (a file of them said), "say" (the agent's) or "note" (the application's)${kinds.length > 1 ? `, not ${kinds.map((k) => `"${k}"`).join(' and ')}` : ''}`,
    );
  if (turn.respond !== undefined && turn.note === undefined)
    throw new ScenarioFileError(`${at}: field 'respond' is a note's`);
  if (turn.note !== undefined && !turn.respond && turn.expect)
    throw new ScenarioFileError(
      `${at}: field 'expect' needs "respond": true: a note without it is answered by no turn`,
    );
  if (turn.expect?.transcript !== undefined && turn.audio === undefined)
    throw new ScenarioFileError(
      `${at}: field 'expect.transcript' is an "audio" turn's: only speech is transcribed`,
    );
  for (const key of ['text', 'text_not', 'transcript'] as const) {
    const pattern = turn.expect?.[key];
    if (pattern === undefined) continue;
    try {
      new RegExp(pattern, 'iu');
    } catch (error) {
      throw new ScenarioFileError(
        `${at}: field 'expect.${key}' is not a regular expression: ${(error as Error).message}`,
      );
    }
  }
}

/** Reads and checks the scenarios file at `path`. */
export function readScenarios(path: string): Promise<ScenarioFile> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return Promise.reject(
      new ScenarioFileError(`${path}: cannot be read: ${(error as Error).message}`),
    );
  }
  return parseScenarios(text, path);
}
