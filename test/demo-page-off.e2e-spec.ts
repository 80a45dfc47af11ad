import { Engine } from './support/engine.js';

/** WS_DEMO_PAGE=false: no page for browsers (the demo page itself: demo-page.e2e-spec.ts). */
describe('the demo page switched off', () => {
  it('is not served with WS_DEMO_PAGE=false', async () => {
    const off = await Engine.start({ LLM_MODEL: 'm', WS_DEMO_PAGE: 'false' });
    try {
      const res = await fetch(`${off.httpUrl}/demo`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({
        message: 'the demo page is off (WS_DEMO_PAGE=false)',
      });
    } finally {
      await off.stop();
    }
  });
});
