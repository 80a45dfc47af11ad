import { createHmac } from 'node:crypto';
import { checkTwilioSignature, checkTwilioWebhook, withQuery } from './twilio-signature.js';

/** Twilio's signature of a request with no parameters: HMAC-SHA1 of its URL, base64. */
const sign = (token: string, url: string) => createHmac('sha1', token).update(url).digest('base64');

describe('checkTwilioSignature', () => {
  const token = '12345678901234567890123456789012';
  const keys = (authToken: string, sharedKey = '') => ({ authToken, sharedKey });
  const tagged = (url: string, headers: Record<string, string> = {}) => ({
    headers: { host: 'engine.example.com', 'x-twilio-signature': sign(token, url), ...headers },
    url: '/twilio',
  });

  it("takes a stream signed for the URL its request names, or for TWILIO_STREAM_URL's", async () => {
    expect(
      await checkTwilioSignature(tagged('wss://engine.example.com/twilio'), keys(token), ''),
    ).toEqual({
      ok: true,
    });
    // Behind an ingress that rewrites the path: the URL Twilio was given is TWILIO_STREAM_URL.
    const behind = 'wss://voice.example.com/agents/front-desk';
    expect((await checkTwilioSignature(tagged(behind), keys(token), behind)).ok).toBe(true);
    expect((await checkTwilioSignature(tagged(behind), keys(token), '')).ok).toBe(false);
    // `/twilio/` is served as `/twilio`: signed with its slash, it is taken too.
    expect(
      (await checkTwilioSignature(tagged('wss://engine.example.com/twilio/'), keys(token), '')).ok,
    ).toBe(true);
  });

  it('takes either token of a rotation, one a line', async () => {
    const check = await checkTwilioSignature(
      tagged('wss://engine.example.com/twilio'),
      keys(`other-token\n${token}\n`),
      '',
    );
    expect(check.ok).toBe(true);
  });

  it('refuses a missing, forged or other-URL signature, saying which', async () => {
    expect(
      await checkTwilioSignature(
        { headers: { host: 'engine.example.com' }, url: '/twilio' },
        keys(token),
        '',
      ),
    ).toEqual({ ok: false, reason: 'no X-Twilio-Signature header' });
    expect(
      await checkTwilioSignature(
        tagged('wss://engine.example.com/twilio'),
        keys('another-token'),
        '',
      ),
    ).toEqual({
      ok: false,
      reason:
        'X-Twilio-Signature does not match the URL wss://engine.example.com/twilio (set TWILIO_STREAM_URL to the one Twilio was given) signed with TWILIO_AUTH_TOKEN',
    });
    expect(
      await checkTwilioSignature(
        tagged('wss://attacker.example/twilio'),
        keys(token),
        'wss://engine.example.com/twilio',
      ),
    ).toEqual({
      ok: false,
      reason: 'X-Twilio-Signature does not match TWILIO_STREAM_URL signed with TWILIO_AUTH_TOKEN',
    });
    const shared = tagged('wss://engine.example.com/twilio', {
      'x-twilio-webhooks-signature-settings': 'key=webhooks_sharedkey_1,algorithm=HMAC_SHA256',
    });
    expect(await checkTwilioSignature(shared, keys(token), '')).toEqual({
      ok: false,
      reason:
        "signed with a Webhooks Rule's shared key (X-Twilio-Webhooks-Signature-Settings): set TWILIO_WEBHOOKS_SHARED_KEY",
    });
  });

  it("takes a stream a Webhooks Rule signed with its shared key, in the header's algorithm", async () => {
    const url = 'wss://engine.example.com/twilio';
    const sharedKey = 'the-rule-shared-key';
    const request = {
      headers: {
        host: 'engine.example.com',
        'x-twilio-signature': createHmac('sha256', sharedKey).update(url).digest('base64'),
        'x-twilio-webhooks-signature-settings': 'key=webhooks_sharedkey_1,algorithm=HMAC_SHA256',
      },
      url: '/twilio',
    };
    expect(await checkTwilioSignature(request, keys(token, sharedKey), '')).toEqual({ ok: true });
    // Not with the Auth Token, nor another key.
    expect((await checkTwilioSignature(request, keys(sharedKey, 'other'), '')).ok).toBe(false);
  });

  describe('checkTwilioWebhook', () => {
    const form = { CallSid: 'CA1', From: '+15550100', To: '+15550199' };
    /** A webhook's signature: its URL, then each form name and value, names sorted. */
    const signForm = (url: string, params: Record<string, string>) =>
      createHmac('sha1', token)
        .update(
          url +
            Object.keys(params)
              .sort()
              .map((k) => k + params[k])
              .join(''),
        )
        .digest('base64');
    const request = (url: string, path: string) => ({
      headers: { host: 'engine.example.com', 'x-twilio-signature': signForm(url, form) },
      url: path,
    });

    it('takes a call signed for its URL (query included) and its form, by the request or TWILIO_VOICE_URL', async () => {
      const url = 'https://engine.example.com/twilio/voice?tenant=acme';
      expect(
        await checkTwilioWebhook(request(url, '/twilio/voice?tenant=acme'), keys(token), '', form),
      ).toEqual({ ok: true });
      const behind = 'https://voice.example.com/agents/front-desk/voice';
      expect(
        (await checkTwilioWebhook(request(behind, '/twilio/voice'), keys(token), behind, form)).ok,
      ).toBe(true);
    });

    it("takes the URLs the engine gave Twilio itself, TWILIO_VOICE_URL's with a query (a transfer's ?resume=)", async () => {
      const behind = 'https://voice.example.com/agents/front-desk/voice?tenant=acme';
      const action = withQuery(behind, 'resume', 'tok_1-2');
      /** Whether a request signed for `signed`, arriving at `path`, is taken. */
      const taken = async (signed: string, path: string) =>
        (await checkTwilioWebhook(request(signed, path), keys(token), behind, form)).ok;
      expect(await taken(action, '/twilio/voice?tenant=acme&resume=tok_1-2')).toBe(true);
      // A query of the request's that TWILIO_VOICE_URL has is TWILIO_VOICE_URL's: not added twice.
      expect(await taken(behind, '/twilio/voice?tenant=acme')).toBe(true);
      expect(await taken(behind, '/twilio/voice?resume=other')).toBe(false);
    });

    it('refuses a form changed after signing, naming TWILIO_VOICE_URL', async () => {
      const url = 'https://engine.example.com/twilio/voice';
      const forged = { ...form, From: '+15550111' };
      expect(
        await checkTwilioWebhook(request(url, '/twilio/voice'), keys(token), '', forged),
      ).toEqual({
        ok: false,
        reason:
          'X-Twilio-Signature does not match the URL https://engine.example.com/twilio/voice (set TWILIO_VOICE_URL to the one Twilio was given) signed with TWILIO_AUTH_TOKEN',
      });
      expect(
        (await checkTwilioWebhook(request(url, '/twilio/voice'), keys(token), url, forged)).ok,
      ).toBe(false);
    });
  });
});
