import { applyQuery, compileQuery, type ResponseQuery } from './response-query.js';

describe('response_query', () => {
  const query = (expression: string) => compileQuery(expression) as ResponseQuery;
  const weather = JSON.stringify({
    current_condition: [{ temp_C: '21', weatherDesc: [{ value: 'Sunny' }], uvIndex: 5 }],
    weather: Array.from({ length: 3 }, (_, i) => ({ date: `2026-12-0${i + 1}`, hourly: [] })),
  });

  it('picks what the model needs from a JSON response, as JSON, and a string as it is', () => {
    expect(
      applyQuery(query('current_condition[0].{temp: temp_C, sky: weatherDesc[0].value}'), weather),
    ).toEqual({
      text: '{"temp":"21","sky":"Sunny"}',
    });
    expect(applyQuery(query('weather[].date'), weather)).toEqual({
      text: '["2026-12-01","2026-12-02","2026-12-03"]',
    });
    expect(applyQuery(query('current_condition[0].weatherDesc[0].value'), weather)).toEqual({
      text: 'Sunny',
    });
    expect(applyQuery(query('length(weather)'), weather)).toEqual({ text: '3' });
  });

  it('hands the whole body on, with the reason, when it cannot be applied', () => {
    expect(applyQuery(query('a'), 'Paris: +21°C')).toEqual({
      text: 'Paris: +21°C',
      problem: 'the response is not JSON',
    });
    expect(applyQuery(query('nothing_here'), weather)).toEqual({
      text: weather,
      problem: 'it selects nothing (null)',
    });
    expect(applyQuery(query('length(current_condition[0].uvIndex)'), weather)).toMatchObject({
      text: weather,
      problem: expect.stringContaining('length() expected argument 1'),
    });
    const deep = `{"a": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    expect(applyQuery(query('a'), deep)).toEqual({
      text: deep,
      problem: 'what it selects is nested more than 100 levels deep',
    });
  });

  it('says why an expression is not JMESPath', () => {
    expect(compileQuery('items[')).toEqual({ error: expect.stringMatching(/^Syntax error/) });
  });
});
