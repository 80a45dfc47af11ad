import { lastValueFrom, toArray } from 'rxjs';
import type { LlmEvent, LlmRequest } from '../../src/llm/llm.types.js';
import { llmClient, useFakeLlm, type Script } from './fake-llm.js';

export const weatherTool = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** A user asking for the weather, with `get_weather` offered. */
export const weatherRequest: LlmRequest = {
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [weatherTool],
};

/**
 * A FakeLlm for a describe block (useFakeLlm) and `events(script, client?, req?)`: what the
 * engine's LLM client (`llmClient(url())` unless given) streams for `req` (`request` unless given)
 * while the server plays `script`.
 */
export function useLlmEvents(request: LlmRequest) {
  const { llm, url } = useFakeLlm();
  const events = (script: Script, c = llmClient(url()), req = request): Promise<LlmEvent[]> => {
    llm.enqueue(script);
    return lastValueFrom(c.stream(req).pipe(toArray()));
  };
  return { llm, url, events };
}
