import { sseStructuredCalls, sseText } from './fake-llm.js';
import { McpTestServer, useMcpServer, type McpTestTool } from './mcp-server.js';
import { writeToolsFile } from './tools-file.js';
import { toolRead, useClientPerTest, useEngineRig } from './turn-harness.js';
import type { WsClient } from './ws-client.js';

/** The server answers with what its user answered, for the test to read in the model's request. */
export const asked = (answer: unknown) => ({
  content: [{ type: 'text', text: JSON.stringify(answer) }],
});

/** A tool whose server asks its user `message`, a form of `properties` (`required`: the form's). */
export const formTool = (
  name: string,
  message: string,
  properties: Record<string, unknown>,
  required?: string[],
): McpTestTool => ({
  name,
  answer: async (_args, { elicit }) => asked(await elicit!(message, properties, required)),
});

/**
 * An engine whose MCP tools `tools` ask their users, with speech (its speech-to-text hears what
 * `hear` says), and a client per test; `ask` starts a turn whose model calls a tool and resolves
 * with the question it asks, `answered` with what the server read once the turn has ended.
 */
export function useQuestionRig(tools: McpTestTool[]) {
  const server = useMcpServer(new McpTestServer(tools));
  let heard = '';
  const rig = useEngineRig(
    (speech) => ({
      LLM_MODEL: 'm',
      TOOL_CONFIRM_TIMEOUT_SECS: '5',
      LLM_TOOLS_FILE: writeToolsFile(
        tools.map(({ name }) => ({ type: 'mcp', name, url: server.url })),
      ),
      STT_BASE_URL: speech,
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: speech,
      SPEECH_AUDIO_LEAD_MS: '0',
    }),
    (req, res) => {
      if (req.path === '/audio/transcriptions')
        return void res.end(JSON.stringify({ text: heard }));
      res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(4800, 7));
    },
  );
  const client = useClientPerTest(rig);
  const ask = async (ws: WsClient, name: string) => {
    rig.llm.enqueue(sseStructuredCalls([{ id: 'call_1', name, arguments: {} }]), sseText(['ok']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: `use ${name}` });
    return { from, question: await ws.waitFor((m) => m.type === 'tool_question', from) };
  };
  const answered = async (ws: WsClient, from: number) => {
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    // The answer started no turn of its own: one request for the call, one for the result.
    expect(rig.llm.requests).toHaveLength(2);
    return JSON.parse(toolRead(rig.llm)) as unknown;
  };
  const hear = (text: string) => (heard = text);
  return { rig, client, ask, answered, hear };
}
