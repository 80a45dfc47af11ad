// asyncapi.json describes `/ws` for client authors and their code generators: it must be what the
// engine's message types and the README say, a valid AsyncAPI 3.0 document, and its examples must
// be messages it describes. (That every frame the engine sends fits it, each e2e test checks:
// test/support/frame-check.ts.)
import { readFileSync, writeFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import specs from '@asyncapi/specs';
import { buildAsyncApi } from './support/asyncapi-document.js';
import { checkFrame } from './support/frame-check.js';
import { Engine } from './support/engine.js';
import fc from 'fast-check';
import {
  CLIENT_MESSAGE_TYPES,
  parseClientMessage,
} from '../src/orchestrator/protocol/client-messages.js';
import { clientFrame } from './support/client-frames.js';
import { SERVER_EVENT_TYPES } from '../src/orchestrator/protocol/server-events.js';
import { SETTINGS } from '../src/orchestrator/protocol/session-update-message.js';
import { ERROR_CODES } from '../src/orchestrator/protocol/error-codes.js';
import * as CLOSE_CODES from '../src/orchestrator/close-codes.js';

const committed = () => JSON.parse(readFileSync('asyncapi.json', 'utf8'));
const validator = (options: ConstructorParameters<typeof Ajv>[0]) => {
  const ajv = new Ajv({ strict: false, allErrors: true, ...options });
  addFormats.default(ajv);
  return ajv.addFormat('binary', true);
};

describe('asyncapi.json', () => {
  it('is what the message types and the README make (set UPDATE_ASYNCAPI=1 to rewrite it)', () => {
    const current = JSON.stringify(buildAsyncApi(), null, 2) + '\n';
    if (process.env.UPDATE_ASYNCAPI === '1') writeFileSync('asyncapi.json', current);
    expect(current).toBe(readFileSync('asyncapi.json', 'utf8'));
  }, 30_000);

  it('is a valid AsyncAPI 3.0 document', () => {
    // The AsyncAPI schema carries JSON Schema's draft-07 meta-schema itself: not Ajv's own too.
    const validate = validator({ meta: false, validateSchema: false }).compile(
      specs.schemas['3.0.0'],
    );
    const doc = committed();
    validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    // AsyncAPI 2's word for what the engine sends is refused: the check is no `{}`.
    doc.operations.sendEngineMessages.action = 'publish';
    expect(validate(doc)).toBe(false);
  });

  it('has a message for every type each way, and session.update every setting', () => {
    const doc = committed();
    const names = (side: string) =>
      Object.values(doc.operations[side].messages).map(
        ({ $ref }: any) => doc.components.messages[$ref.split('/').pop()].name,
      );
    expect(names('receiveClientMessages').sort()).toEqual(
      [...CLIENT_MESSAGE_TYPES, 'audio (binary frame)'].sort(),
    );
    expect(names('sendEngineMessages').sort()).toEqual(
      [...SERVER_EVENT_TYPES, 'audio (binary frame)'].sort(),
    );
    const update = doc.components.schemas.SessionUpdateMessage.properties;
    expect(Object.keys(update).sort()).toEqual(['type', ...Object.keys(SETTINGS)].sort());
  });

  it('says every error code and every close code the engine uses', () => {
    const doc = committed();
    const { enum: codes, description } = doc.components.schemas.ErrorCode;
    expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect(description).toContain(`- \`${code}\`: `);
    const closing = doc.channels.conversation.description as string;
    for (const code of Object.values(CLOSE_CODES).filter((c) => typeof c === 'number'))
      expect(closing).toContain(`- close code ${code}`);
    // The frame too large for WS_MAX_MESSAGE_BYTES (ws' own code).
    expect(closing).toContain('- close code 1009');
  });

  it("takes the README's examples as the messages they show, and refuses a changed one", () => {
    const doc = committed();
    const ajv = validator({});
    ajv.addSchema(doc, 'asyncapi');
    const checked: string[] = [];
    for (const [key, message] of Object.entries<any>(doc.components.messages)) {
      const validate = ajv.getSchema(`asyncapi#/components/messages/${key}/payload`)!;
      for (const { payload } of message.examples ?? []) {
        expect({ key, payload, valid: validate(payload), errors: validate.errors }).toMatchObject({
          valid: true,
        });
        // A field of the wrong type is refused: the schema is no `{}`. One it does not know is
        // refused in what the engine sends, and in a client's session.update (a setting
        // misspelt); the client's other messages may carry it (a newer client's), unread.
        const strict = !key.startsWith('client.') || key === 'client.session.update';
        expect(validate({ ...payload, no_such_field: 1 })).toBe(!strict);
        expect(validate({ ...payload, type: 42 })).toBe(false);
        checked.push(key);
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'client.user_text',
        'client.session.update',
        'engine.assistant_end',
        'engine.tool_call',
        'engine.session.updated',
      ]),
    );
  });
});

describe("asyncapi.json's client messages", () => {
  it('describe every frame the engine takes (what it refuses may fit: limits are not types)', () => {
    const doc = committed();
    const ajv = validator({});
    ajv.addSchema(doc, 'asyncapi');
    const byType = new Map(
      Object.entries<any>(doc.components.messages)
        .filter(([key, m]) => key.startsWith('client.') && m.contentType === 'application/json')
        .map(([key, m]) => [
          m.name,
          ajv.getSchema(`asyncapi#/components/messages/${key}/payload`)!,
        ]),
    );
    let taken = 0;
    fc.assert(
      fc.property(clientFrame, (frame) => {
        if (!('message' in parseClientMessage(frame))) return;
        taken++;
        const message = JSON.parse(frame);
        const validate = byType.get(message.type)!;
        expect({ frame, valid: validate(message), errors: validate.errors }).toMatchObject({
          valid: true,
        });
      }),
      { numRuns: Number(process.env.CHAOS_RUNS ?? 1000) },
    );
    expect(taken).toBeGreaterThan(0);
  });
});

describe('frames checked against asyncapi.json', () => {
  const afterTest = [
    ...(globalThis as any)[Symbol.for('engine-tests.afterTest')],
  ] as (() => void)[];

  it('fail the test that received them, naming the frame and what does not fit', () => {
    checkFrame({ type: 'assistant_delta', text: 'Hi' });
    checkFrame({ type: 'pong' });
    for (const check of afterTest) check(); // nothing found: no throw
    checkFrame({ type: 'tool_call', id: 5, name: 'get_weather', arguments: {} });
    checkFrame({ type: 'assistant_delta', text: 'Hi', extra: true });
    checkFrame({ type: 'no_such_event' });
    const thrown = (() => {
      try {
        for (const check of afterTest) check();
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(thrown).toContain('the engine sent 3 frame(s) asyncapi.json does not describe');
    expect(thrown).toContain(
      '{"type":"tool_call","id":5,"name":"get_weather","arguments":{}}: data/id must be string',
    );
    expect(thrown).toContain('data must NOT have additional properties');
    expect(thrown).toContain('a message of a type asyncapi.json has not: {"type":"no_such_event"}');
  });
});

describe('GET /asyncapi.json', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({});
  });
  afterAll(() => engine.stop());

  it('serves the committed document, which the image holds, and Swagger lists it', async () => {
    const res = await fetch(`${engine.httpUrl}/asyncapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe(readFileSync('asyncapi.json', 'utf8'));
    // The engine reads it at run time, beside its dist/.
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^COPY .* asyncapi\.json \.\/$/m);
    const openapi = (await (await fetch(`${engine.httpUrl}/docs-json`)).json()) as any;
    expect(openapi.paths['/asyncapi.json'].get).toMatchObject({ tags: ['protocol'] });
  });
});
