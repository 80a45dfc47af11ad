import { ServerAdaptations, withoutEmptyProperties } from './server-adaptations.js';

const GEMINI =
  '[{"error":{"code":400,"message":"* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for OBJECT type\\n","status":"INVALID_ARGUMENT"}}]';
const VLLM =
  '{"message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"}';

describe('ServerAdaptations', () => {
  it('learns each adaptation once from the 400 that asks for it', () => {
    const server = new ServerAdaptations();
    expect(server.learn(GEMINI, 'auto')).toMatch(/without "properties"/);
    expect(server.learn(GEMINI, 'auto')).toBeUndefined();
    expect(server.learn(VLLM, 'none')).toBeUndefined(); // tool_choice "none" was not refused
    expect(server.learn(VLLM, 'auto')).toMatch(/no tool parser/);
    expect(server.learn('{"message":"invalid model"}', 'auto')).toBeUndefined();
    expect(server).toMatchObject({ noToolParser: true, bareObjects: true });
  });

  it('leaves out empty properties, nested ones too, once the server refused them', () => {
    const schema = {
      type: 'object',
      properties: { filter: { type: 'object', properties: {} }, n: { type: 'integer' } },
      required: ['n'],
    };
    const server = new ServerAdaptations();
    expect(server.parameters({ type: 'object', properties: {} })).toEqual({
      type: 'object',
      properties: {},
    });
    server.learn(GEMINI, 'auto');
    expect(server.parameters({ type: 'object', properties: {}, required: [] })).toEqual({
      type: 'object',
    });
    expect(withoutEmptyProperties(schema)).toEqual({
      type: 'object',
      properties: { filter: { type: 'object' }, n: { type: 'integer' } },
      required: ['n'],
    });
  });
});
