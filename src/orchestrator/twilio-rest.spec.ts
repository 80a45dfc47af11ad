import { RecordingServer, useRecordingServer } from '../../test/support/recording-server.js';
import { dialTwiml, transferCall } from './twilio-rest.js';

/** A call transferred through a real HTTP server standing for Twilio's REST API. */
describe("transferCall (Twilio's Calls resource)", () => {
  const { server: api, url } = useRecordingServer();

  it("replaces the call's TwiML with a Dial of the number, as the account", async () => {
    api.respond((_req, res) => res.end('{"sid":"CA0001","status":"in-progress"}'));
    await transferCall(
      { apiBaseUrl: url(), accountSid: 'AC0001', authToken: 'token-1\ntoken-0' },
      'CA0001',
      '+15550100',
      { timeoutSecs: 20, action: 'https://engine.example.com/twilio/voice?resume=t&x=1' },
    );
    const [request] = api.requests;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/2010-04-01/Accounts/AC0001/Calls/CA0001.json',
      headers: {
        authorization: `Basic ${Buffer.from('AC0001:token-1').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
    });
    expect(Object.fromEntries(new URLSearchParams(request!.body))).toEqual({
      Twiml:
        '<?xml version="1.0" encoding="UTF-8"?><Response><Dial action="https://engine.example.com/twilio/voice?resume=t&amp;x=1" method="POST" timeout="20"><Number>+15550100</Number></Dial></Response>',
    });
  });

  it('dials a SIP address as such, its text escaped', async () => {
    expect(await dialTwiml('sip:desk@pbx.example.com?x-team=<a&b>', { timeoutSecs: 30 })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial timeout="30"><Sip>sip:desk@pbx.example.com?x-team=&lt;a&amp;b&gt;</Sip></Dial></Response>',
    );
  });

  it("says why a transfer failed: Twilio's message, no account, no answer", async () => {
    api.respond((_req, res) => {
      res.statusCode = 404;
      res.end('{"code":20404,"message":"The requested resource was not found","status":404}');
    });
    const account = { apiBaseUrl: url(), accountSid: 'AC0001', authToken: 'token-1' };
    const dial = { timeoutSecs: 30 };
    await expect(transferCall(account, 'CA9', '+15550100', dial)).rejects.toThrow(
      "Twilio's API refused to transfer a call (HTTP 404): The requested resource was not found",
    );
    await expect(
      transferCall({ ...account, accountSid: '' }, 'CA9', '+15550100', dial),
    ).rejects.toThrow('TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are needed to transfer a call');
    const gone = new RecordingServer();
    const closed = await gone.start();
    await gone.stop();
    await expect(
      transferCall({ ...account, apiBaseUrl: closed }, 'CA9', '+15550100', dial),
    ).rejects.toThrow("cannot reach Twilio's API (ECONNREFUSED)");
  });
});
