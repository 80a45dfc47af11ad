// asyncapi.json: the WebSocket protocol of `/ws` as an AsyncAPI 3.0 document, made from the
// engine's own TypeScript types of the messages (server-events.ts, client-messages.ts) and the
// README's protocol tables (each message's description and examples). `npm run asyncapi` rewrites
// it; test/asyncapi.spec.ts checks that the committed one is what this makes.
import { readFileSync } from 'node:fs';
import { createGenerator } from 'ts-json-schema-generator';
import { ENGINE_VERSION } from '../../src/version.js';

type Schema = Record<string, any>;

const PROTOCOL = 'src/orchestrator/protocol';

/** The README's protocol tables: per message type, the rows' descriptions and their examples. */
export interface DocumentedMessage {
  description: string[];
  examples: Record<string, unknown>[];
}

/** The rows of the README table that follows `heading` (a line of its own), by message type. */
export function readmeRows(readme: string, heading: string): Map<string, DocumentedMessage> {
  const found = new Map<string, DocumentedMessage>();
  for (const [first, description] of tableRows(readme, heading)) {
    const types = [...first.matchAll(/\{"type":"([^"]+)"/g)].map((m) => m[1]!);
    for (const type of new Set(types)) {
      const entry = found.get(type) ?? { description: [], examples: [] };
      entry.description.push(description);
      found.set(type, entry);
    }
    for (const [, code] of first.matchAll(/`(\{[^`]*\})`/g)) {
      let example: unknown;
      try {
        example = JSON.parse(code!);
      } catch {
        continue; // an example with an ellipsis for an object or a list: not JSON
      }
      const type = (example as { type?: unknown }).type;
      if (typeof type === 'string')
        found.get(type)?.examples.push(example as Record<string, unknown>);
    }
  }
  return found;
}

/** The README table after `heading` as [first cell, second cell] pairs, code spans' backticks kept. */
function tableRows(readme: string, heading: string): [string, string][] {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`the README has no "${heading}" table`);
  const lines = readme.slice(start + heading.length + 2).split('\n');
  const rows: [string, string][] = [];
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith('|')) + 2)) {
    if (!line.startsWith('| ')) break;
    const cells = line.slice(2, -2);
    const split = cells.indexOf(' | ');
    rows.push([cells.slice(0, split), cells.slice(split + 3)]);
  }
  return rows;
}

/** The close codes the engine ends a connection with, as the README's table of its messages says. */
function closeCodes(readme: string): string {
  return tableRows(readme, 'Engine → client:')
    .filter(([first]) => first.startsWith('close code'))
    .map(([first, when]) => `- ${first}: ${when}`)
    .join('\n');
}

/** The error codes' meanings, from the README's table of them (its sentence ends `internal`):). */
function errorCodes(readme: string): string {
  return tableRows(readme, '`internal`):')
    .map(([code, meaning]) => `- ${code}: ${meaning}`)
    .join('\n');
}

/** `schema` with its references to `#/definitions/…` made references to the components'. */
function componentRefs<T>(schema: T): T {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/definitions/', '"#/components/schemas/'),
  ) as T;
}

/** `session.updated` → `SessionUpdatedEvent`. */
const eventName = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('') + 'Event';

/**
 * The members of a union of server events, each named: a member that is a reference keeps its
 * definition's name, an inline one is given its type's (`AssistantDeltaEvent`) and added to
 * `schemas`. Returns the union's references, and the message type of each name.
 */
function namedMembers(
  union: Schema,
  schemas: Record<string, Schema>,
  types: Map<string, string>,
): Schema[] {
  return (union.anyOf as Schema[]).map((member) => {
    if (member.$ref) {
      const name = (member.$ref as string).split('/').pop()!;
      const definition = schemas[name]!;
      if (definition.anyOf) definition.anyOf = namedMembers(definition, schemas, types);
      else types.set(definition.properties.type.const, name);
      return member;
    }
    const type = member.properties.type.const as string;
    const name = eventName(type);
    schemas[name] = member;
    types.set(type, name);
    return { $ref: `#/definitions/${name}` };
  });
}

/** The messages one way (`client` or `engine`), each with the README's words and examples. */
function messages(
  side: 'client' | 'engine',
  types: Map<string, string>,
  documented: Map<string, DocumentedMessage>,
): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const [type, schema] of types) {
    const doc = documented.get(type);
    if (!doc) throw new Error(`the README's protocol tables say nothing of ${side} "${type}"`);
    out[`${side}.${type}`] = {
      name: type,
      title: type,
      contentType: 'application/json',
      description: doc.description.join('\n\n'),
      payload: { $ref: `#/components/schemas/${schema}` },
      ...(doc.examples.length > 0 && {
        examples: doc.examples.map((payload) => ({ payload })),
      }),
    };
  }
  return out;
}

const binary = (side: 'client' | 'engine', description: string): Schema => ({
  [`${side}.audio_binary`]: {
    name: 'audio (binary frame)',
    title: 'audio (binary frame)',
    contentType: 'application/octet-stream',
    description,
    payload: { type: 'string', format: 'binary' },
  },
});

/** The whole document, as committed (`asyncapi.json`). */
export function buildAsyncApi(readme = readFileSync('README.md', 'utf8')): Schema {
  const generator = createGenerator({
    path: `${PROTOCOL}/{client-messages,server-events}.ts`,
    tsconfig: 'tsconfig.json',
    skipTypeCheck: true,
    expose: 'export',
    topRef: false,
    jsDoc: 'extended',
  });
  const client = generator.createSchema('ClientMessage');
  const server = generator.createSchema('ServerEvent');
  const schemas: Record<string, Schema> = { ...client.definitions, ...server.definitions } as any;

  const clientTypes = new Map<string, string>();
  for (const { $ref } of client.anyOf as Schema[]) {
    const name = ($ref as string).split('/').pop()!;
    clientTypes.set(schemas[name]!.properties.type.const, name);
    // A field the engine does not know is let be (a newer client's), but in `session.update`,
    // where a misspelt setting would be lost: refused.
    if (name !== 'SessionUpdateMessage') delete schemas[name]!.additionalProperties;
  }
  schemas.ClientMessage = {
    description: 'Any message a client sends (a text frame).',
    anyOf: client.anyOf,
  };
  const engineTypes = new Map<string, string>();
  schemas.ServerEvent = {
    description: 'Any message the engine sends (a text frame).',
    anyOf: namedMembers(server, schemas, engineTypes),
  };

  schemas.ErrorCode!.description = `What went wrong (new codes may be added: take an unknown one as \`internal\`):\n\n${errorCodes(readme)}`;
  const toEngine = readmeRows(readme, 'Client → engine:');
  const toClient = readmeRows(readme, 'Engine → client:');
  const components = componentRefs({
    messages: {
      ...messages('client', clientTypes, toEngine),
      ...binary(
        'client',
        'A piece of the user\'s utterance as a binary frame, as `{"type":"audio"}` carries it in base64.',
      ),
      ...messages('engine', engineTypes, toClient),
      ...binary(
        'engine',
        'The answer\'s speech as binary frames, in a session whose `audio` setting is `binary`, instead of `{"type":"audio"}` events.',
      ),
    },
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
  });
  const refs = (side: string) =>
    Object.keys(components.messages)
      .filter((key) => key.startsWith(`${side}.`))
      .map((key) => ({ $ref: `#/channels/conversation/messages/${key}` }));
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Audio agent engine: the conversation (/ws)',
      version: ENGINE_VERSION,
      description:
        'A voice or text conversation with the agent over one WebSocket: JSON text frames each way (and binary frames of audio). The README\'s "WebSocket protocol" section is the reference; this document says the same of each message, with its fields\' types.',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    defaultContentType: 'application/json',
    servers: {
      engine: {
        host: 'localhost:8787',
        protocol: 'ws',
        description: 'An engine (its port is PORT, 8787 by default); wss behind a TLS proxy.',
        security: [
          { $ref: '#/components/securitySchemes/bearer' },
          { $ref: '#/components/securitySchemes/token' },
        ],
      },
    },
    channels: {
      conversation: {
        address: '/ws',
        title: 'A conversation',
        description: `One session a connection: \`session\` first, then the turns. Malformed or invalid messages are answered with an \`error\` event and the connection lives on. The engine closes a connection with these codes:\n\n${closeCodes(readme)}`,
        messages: Object.fromEntries(
          Object.keys(components.messages).map((key) => [
            key,
            { $ref: `#/components/messages/${key}` },
          ]),
        ),
        bindings: {
          ws: {
            method: 'GET',
            query: {
              type: 'object',
              properties: {
                token: {
                  type: 'string',
                  description:
                    'WS_API_KEY, for browsers (which cannot set headers on a WebSocket).',
                },
                resume: {
                  type: 'string',
                  description: 'A `resume_token`: the session goes on (SESSION_RESUME_SECS).',
                },
              },
            },
            headers: {
              type: 'object',
              properties: {
                Authorization: {
                  type: 'string',
                  description: '`Bearer <WS_API_KEY>`, when the engine sets one.',
                },
                traceparent: {
                  type: 'string',
                  description:
                    "W3C trace context: the client's span, which each turn's span links to.",
                },
              },
            },
            bindingVersion: '0.1.0',
          },
        },
      },
    },
    operations: {
      receiveClientMessages: {
        action: 'receive',
        title: 'What the client sends',
        channel: { $ref: '#/channels/conversation' },
        messages: refs('client'),
      },
      sendEngineMessages: {
        action: 'send',
        title: 'What the engine sends',
        channel: { $ref: '#/channels/conversation' },
        messages: refs('engine'),
      },
    },
    components: {
      ...components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'WS_API_KEY as `Authorization: Bearer <key>`, when the engine sets one.',
        },
        token: {
          type: 'httpApiKey',
          name: 'token',
          in: 'query',
          description: 'WS_API_KEY as `?token=<key>`, for browsers.',
        },
      },
    },
  };
}
