import { Logger } from '@nestjs/common';
import type { CodeToolService } from '../code-tools/code-tool.service.js';
import { Spans } from '../tracing/spans.js';
import type { HttpToolExecutor } from './http-tool.executor.js';
import type { McpToolExecutor } from './mcp/mcp-tool.executor.js';
import { snapshotOf } from './tool-definition.js';
import type { ToolGuards } from './tool-guards.service.js';
import { ToolRouter } from './tool-router.executor.js';
import { validateToolDefinitions } from './tool-validation.js';

describe('ToolRouter', () => {
  const { tools } = validateToolDefinitions(
    [{ name: 'get_weather', url: 'http://weather.example/{city}', method: 'GET' }],
    'tools.json',
  );
  const call = {
    id: 'call_1',
    name: 'get_weather',
    args: { city: 'Lima' },
    snapshot: snapshotOf('file', tools),
    signal: new AbortController().signal,
    context: { sessionId: 's1', turnId: 't1' } as never,
  };

  it("answers a call whose executor throws (a fault of the engine's) as failed, and logs why", async () => {
    const fault = new URIError('URI malformed');
    const http = { execute: () => Promise.reject(fault) } as unknown as HttpToolExecutor;
    const router = new ToolRouter(
      http,
      {} as CodeToolService,
      {} as McpToolExecutor,
      Spans.off,
      {} as ToolGuards,
    );
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => {});
    // What the model reads says no more than that: the error's text is for the log.
    expect(await router.execute(call)).toEqual({
      ok: false,
      text: 'Error: tool request failed: the engine could not make the call',
    });
    expect(logged).toHaveBeenCalledWith(
      `tool 'get_weather' failed inside the engine (session_id=s1 turn_id=t1): ${fault.stack}`,
    );
  });
});
