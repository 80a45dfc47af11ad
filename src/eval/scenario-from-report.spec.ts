import { NOT_THE_USERS, noteMessage } from '../orchestrator/notes.js';
import { scenarioFromReport } from './scenario-from-report.js';

const call = (name: string, args: string) => ({
  id: `call_${name}`,
  type: 'function',
  function: { name, arguments: args },
});

describe('scenarioFromReport', () => {
  it("makes a turn of each of the user's messages, expecting the calls the model made then", () => {
    const report = {
      session_id: 's-1',
      settings: {
        instructions: 'The caller is Ada.',
        tools: null,
        client_tools: [],
        model: null,
        language: 'en',
        modality: 'voice',
      },
      history: [
        { role: 'assistant', content: 'Hello, how can I help?' },
        { role: 'user', content: 'Weather in Rome and the time?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [call('get_weather', '{"city":"Rome"}'), call('get_time', 'not json')],
        },
        { role: 'tool', tool_call_id: 'call_get_weather', content: 'Rome: sunny' },
        { role: 'tool', tool_call_id: 'call_get_time', content: '12:00' },
        { role: 'assistant', content: 'Sunny, and it is noon.' },
        { role: 'user', content: `${NOT_THE_USERS}a note from the application…]\nPaid.` },
        { role: 'user', content: 'Thanks!' },
        { role: 'assistant', content: 'You are welcome.' },
      ],
    };
    expect(scenarioFromReport(report, 'r.json')).toEqual({
      name: 'session s-1',
      session: { instructions: 'The caller is Ada.', language: 'en' },
      turns: [
        {
          user: 'Weather in Rome and the time?',
          expect: {
            tool_calls: [
              { name: 'get_weather', arguments: { city: 'Rome' } },
              { name: 'get_time' },
            ],
          },
        },
        { user: 'Thanks!', expect: { tool_calls: [] } },
      ],
    });
    expect(scenarioFromReport(report, 'r.json', 'weather').name).toBe('weather');
  });

  it("keeps the application's notes as notes, one answered with the calls made then", () => {
    const history = [
      { role: 'user', content: noteMessage('The caller is on the pricing page.', false) },
      { role: 'user', content: 'How much is it?' },
      { role: 'assistant', content: 'Ten euros.' },
      { role: 'user', content: noteMessage('Paid: 10 EUR.', true) },
      { role: 'assistant', content: null, tool_calls: [call('send_receipt', '{}')] },
      { role: 'tool', tool_call_id: 'call_send_receipt', content: 'sent' },
      { role: 'assistant', content: 'Your receipt is on its way.' },
    ];
    expect(scenarioFromReport({ history }, 'r.json').turns).toEqual([
      { note: 'The caller is on the pricing page.' },
      { user: 'How much is it?', expect: { tool_calls: [] } },
      {
        note: 'Paid: 10 EUR.',
        respond: true,
        expect: { tool_calls: [{ name: 'send_receipt', arguments: {} }] },
      },
    ]);
  });

  it('refuses what is no report, or one without a turn of the user', () => {
    expect(() => scenarioFromReport({ turns: 3 }, 'r.json')).toThrow(
      'r.json: no "history" list: an end-of-session report (SESSION_WEBHOOK_URL) has one',
    );
    expect(() => scenarioFromReport(null, 'r.json')).toThrow('r.json: no "history" list');
    expect(() =>
      scenarioFromReport({ history: [{ role: 'assistant', content: 'Hi' }] }, 'r.json'),
    ).toThrow("r.json: its history holds no turn of the user's");
  });
});
