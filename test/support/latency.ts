/** A session's `latency` after one typed answer (`/api/sessions`, its report): its figures any. */
export function oneTextAnswer(): Record<string, unknown> {
  const once = () => ({
    p50: expect.any(Number),
    p90: expect.any(Number),
    max: expect.any(Number),
    turns: 1,
  });
  return { first_text_ms: once(), llm_first_ms: once() };
}
