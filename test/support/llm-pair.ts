import { Engine } from './engine.js';
import { FakeLlm } from './fake-llm.js';
import { WsClient, type Msg } from './ws-client.js';

/** The engine between two fake LLM servers, the first and its fallback (LLM_FALLBACK_BASE_URL). */
export interface LlmPair {
  primary: FakeLlm;
  fallback: FakeLlm;
  engine: Engine;
  /** One turn of a new connection, closed after it. */
  turn(text: string): Promise<Msg[]>;
}

/**
 * Starts both servers and the engine (with `env`) before the block's tests, stops them after,
 * and has both servers forget what they saw before each test.
 */
export function useLlmPair(env: Record<string, string>): LlmPair {
  const pair = { primary: new FakeLlm(), fallback: new FakeLlm() } as LlmPair;
  beforeAll(async () => {
    pair.engine = await Engine.start({
      LLM_BASE_URL: await pair.primary.start(),
      LLM_FALLBACK_BASE_URL: await pair.fallback.start(),
      ...env,
    });
  });
  afterAll(async () => {
    await pair.engine?.stop();
    await pair.primary.stop();
    await pair.fallback.stop();
  });
  beforeEach(() => {
    pair.primary.reset();
    pair.fallback.reset();
  });
  pair.turn = async (text) => {
    const ws = await WsClient.connect(pair.engine.wsUrl);
    try {
      return await ws.turn(text, 10_000);
    } finally {
      ws.close();
    }
  };
  return pair;
}
