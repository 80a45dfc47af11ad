import { createHmac } from 'node:crypto';
import { useBuiltEngines } from './support/built-engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { TwilioCall } from './support/twilio-call.js';
import { until, untilAsync } from './support/waiting.js';

const AUTH_TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
/** The address Twilio streams to: a load balancer in front of the replicas. */
const STREAM_URL = 'wss://lb.example.com/twilio';
const signed = {
  'X-Twilio-Signature': createHmac('sha1', AUTH_TOKEN).update(STREAM_URL).digest('base64'),
};

/**
 * A phone call whose replica stops (a rolling update): rather than closing the call's stream,
 * which would end the call (its TwiML has nothing after `<Connect>`), the engine gives the call
 * a stream to its session again through Twilio's REST API (here a server standing for it), and
 * the replica that takes the new stream goes on with the conversation (sessions in Redis).
 */
describe('a phone call when its replica stops', () => {
  let redis: RedisRun;
  const llm = new FakeLlm();
  const api = new RecordingServer();
  const urls = { llm: '', api: '' };
  beforeAll(async () => {
    redis = await startRedis();
    [urls.llm, urls.api] = await Promise.all([llm.start(), api.start()]);
  });
  const start = useBuiltEngines();
  afterAll(async () => {
    await Promise.all([llm.stop(), api.stop()]);
    await redis?.stop();
  });

  it('goes on with its conversation on another replica', async () => {
    const env = {
      LLM_BASE_URL: urls.llm,
      LLM_MODEL: 'm',
      SESSION_STORE_URL: redis.url,
      TWILIO_ACCOUNT_SID: 'AC0001',
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_API_BASE_URL: urls.api,
      TWILIO_STREAM_URL: STREAM_URL,
    };
    const [stopping, other] = await Promise.all([start(env), start(env)]);
    const twilioOf = (engine: { wsUrl: string }) => engine.wsUrl.replace(/\/ws$/, '/twilio');

    const call = await TwilioCall.dial(twilioOf(stopping), {}, signed);
    llm.enqueue(sseText(['Your order ships on Monday.']));
    call.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '1' } });
    await until(() => llm.requests.length === 1, 'the first turn');
    await new Promise((resolve) => setTimeout(resolve, 300)); // its answer saved with the turn

    stopping.stop();
    await until(() => api.requests.length === 1, 'the call given a stream again', 10_000);
    expect(api.requests[0]).toMatchObject({
      method: 'POST',
      path: '/2010-04-01/Accounts/AC0001/Calls/CA0001.json',
    });
    const twiml = new URLSearchParams(api.requests[0]!.body).get('Twiml')!;
    expect(twiml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><Response><Connect><Stream url="wss:\/\/lb\.example\.com\/twilio"><Parameter name="resume" value="[\w-]+"\/><\/Stream><\/Connect><\/Response>$/,
    );
    expect(await stopping.exited).toBe(0);
    expect(stopping.output).toContain('Twilio call CA0001 carried over');

    // Twilio streams the call as that TwiML says; the load balancer sends it to the other replica.
    const again = await TwilioCall.fromTwiml(twilioOf(other), twiml, {
      authToken: AUTH_TOKEN,
      streamUrl: STREAM_URL,
    });
    llm.enqueue(sseText(['Anything else?']));
    again.send({
      event: 'dtmf',
      streamSid: 'MZ0001',
      dtmf: { track: 'inbound_track', digit: '2' },
    });
    await until(() => llm.requests.length === 2, 'the turn on the other replica', 10_000);
    const messages = llm.requests[1]!.body.messages as { role: string; content: string }[];
    expect(messages.slice(-3)).toEqual([
      { role: 'user', content: 'DTMF: 1' },
      { role: 'assistant', content: 'Your order ships on Monday.' },
      { role: 'user', content: 'DTMF: 2' },
    ]);
    again.socket.close();
  }, 60_000);

  it('streams a call that comes in as the engine stops again, as it came', async () => {
    api.requests.length = 0;
    llm.reset();
    const env = {
      LLM_BASE_URL: urls.llm,
      LLM_MODEL: 'm',
      TWILIO_ACCOUNT_SID: 'AC0001',
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_API_BASE_URL: urls.api,
      TWILIO_STREAM_URL: STREAM_URL,
    };
    const engine = await start(env);
    // A turn in progress keeps the engine draining while the new call comes.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    llm.enqueue({ ...sseText(['Still ', 'talking.']), gate });
    const busy = await TwilioCall.dial(engine.wsUrl.replace(/\/ws$/, '/twilio'), {}, signed);
    busy.send({ event: 'dtmf', streamSid: 'MZ0001', dtmf: { track: 'inbound_track', digit: '1' } });
    await until(() => llm.requests.length === 1, 'the turn in progress');
    engine.stop();
    await until(() => engine.output.includes('draining 1 session'), 'the drain');
    const late = await TwilioCall.dial(
      engine.wsUrl.replace(/\/ws$/, '/twilio'),
      { greeting: 'Hello!', customer_id: 'C-42' },
      signed,
    );
    await until(() => api.requests.length === 1, 'the late call given a stream again');
    const twiml = new URLSearchParams(api.requests[0]!.body).get('Twiml')!;
    expect(twiml).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${STREAM_URL}"><Parameter name="greeting" value="Hello!"/><Parameter name="customer_id" value="C-42"/></Stream></Connect></Response>`,
    );
    // Counted, for an operator to see that deploys carry calls over (the engine still drains).
    const carried = 'agent_engine_calls_carried_over_total{outcome="carried"} 1';
    await untilAsync(
      async () => (await (await fetch(`${engine.url}/metrics`)).text()).includes(carried),
      'the carry-over counted',
    );
    release();
    expect(await engine.exited).toBe(0);
    late.socket.close();
  }, 60_000);
});
