import { applyQuery, compileQuery, serviceError, type ResponseQuery } from './response-query.js';

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

  it("error_query: finds the error in a 2xx answer by JMESPath's truth, nothing else", () => {
    const graphql = JSON.stringify({ data: null, errors: [{ message: 'Order 42 not found' }] });
    expect(serviceError(query('errors[0].message'), graphql)).toBe('Order 42 not found');
    expect(serviceError(query('errors'), graphql)).toBe('[{"message":"Order 42 not found"}]');
    // A condition that holds: the whole body.
    const legacy = '{"success": false}';
    expect(serviceError(query('success == `false`'), legacy)).toBe(legacy);
    expect(serviceError(query('success == `false`'), '{"success": true}')).toBeUndefined();
    // JMESPath's false: null, false, "", [], {} (0 is true).
    for (const body of ['{}', '{"e":null}', '{"e":false}', '{"e":""}', '{"e":[]}', '{"e":{}}'])
      expect(serviceError(query('e'), body)).toBeUndefined();
    expect(serviceError(query('e'), '{"e":0}')).toBe('0');
    // Not JSON, or a query that fails on it: the answer stands.
    expect(serviceError(query('e'), 'Open 9 to 5.')).toBeUndefined();
    expect(serviceError(query('length(e)'), '{"e":5}')).toBeUndefined();
  });
});
