import fc from 'fast-check';

/**
 * Values a definition's field may be given: those its rules take (so that a definition gets past
 * them, to the checks after), those they refuse, and any JSON.
 */
export const FIELDS: Record<string, unknown[]> = {
  type: [
    'http',
    'python',
    'mcp',
    'openapi',
    'handoff',
    'end_session',
    'transfer_call',
    'tool_search',
    'x',
  ],
  name: ['get_weather', 'a-b', '', 'x'.repeat(70), 'tool_search'],
  description: ['Weather', ''],
  url: [
    'http://h/w/{city}',
    'https://h/{a}/{b}?k={c}',
    'ftp://h',
    'h/w',
    'http://h/${TOOL_SECRET_X}',
  ],
  method: ['GET', 'POST', 'get', 'GE T', ''],
  headers: [
    { 'X-City': '{city}' },
    { 'Content-Type': 'application/x-www-form-urlencoded' },
    { 'X-A': 'a\nb' },
  ],
  parameters: [
    { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    { type: 'object', properties: { n: { type: 'integer', minimum: 'x' } } },
    { type: 'string' },
  ],
  body: ['{"city": "{city}"}', '{city}', '', '{'],
  query_styles: [{ city: { style: 'form' } }, { city: { style: 'nope' } }],
  placeholder_styles: [{ city: { style: 'matrix', explode: true } }, { city: 'simple' }],
  header_arguments: [['city'], ['nope'], 'city'],
  query_arguments: [['city'], []],
  confirm: [true, false, 'destructive', 'x'],
  confirm_prompt: ['Sure about {city}?', ''],
  safe: [true, false],
  timeout_secs: [0, 5, -1, 1e9],
  result_max_chars: [1, 100, 0],
  retries: [0, 2, 99],
  cache_secs: [60, -5],
  rate_limit: [{ calls: 1, per_secs: 1 }, { calls: 0 }],
  max_concurrency: [1, 0],
  max_calls_per_session: [1, 5000],
  deferred: [true, false],
  background: [true, false],
  at_start: [true, false, 'yes'],
  user_given: [['city'], ['nope'], [], 'city'],
  response_query: ['current_condition[0]', 'items[', ''],
  error_query: ['errors[0].message', 'errors[?', ''],
  keywords: [['rain'], 'rain'],
  code: ['def get_weather(city: str) -> str:\n    return city', 'def (', ''],
  file: ['missing.py', ''],
  tools: ['*', ['a'], 3],
  prefix: ['crm_', ''],
  spec: ['specs/orders.yaml', 'https://api.example.com/openapi.json', ''],
  operation: ['getOrder', ''],
  command: ['npx', ['npx', 'server'], ''],
  agent: ['billing', ''],
  instructions: ['You are billing.', ''],
  oauth2: [{ token_url: 'https://idp/token', client_id: 'c', client_secret: 's' }, {}],
};

/** Definitions that are taken, of each kind, for the fields to change. */
const BASES: Record<string, unknown>[] = [
  { name: 'get_weather', url: 'http://127.0.0.1:9/w/{city}', method: 'GET' },
  { name: 'add_note', url: 'http://127.0.0.1:9/notes', method: 'POST' },
  {
    type: 'python',
    code: 'def lookup(city: str) -> str:\n    """Looks a city up."""\n    return city',
  },
  { type: 'handoff', name: 'to_billing', instructions: 'You are billing.' },
  { type: 'end_session', name: 'hang_up' },
  {},
];

/** One definition: a taken one, or none, with some of its fields changed (a value of its own, or any JSON). */
export const definition = fc
  .tuple(
    fc.constantFrom(...BASES),
    fc.uniqueArray(fc.constantFrom(...Object.keys(FIELDS)), { maxLength: 4 }),
    fc.array(fc.oneof({ weight: 5, arbitrary: fc.nat() }, fc.jsonValue({ maxDepth: 2 })), {
      minLength: 4,
      maxLength: 4,
    }),
  )
  .map(([base, keys, picks]) => ({
    ...base,
    ...Object.fromEntries(
      keys.map((key, i) => {
        const values = FIELDS[key]!;
        const pick = picks[i];
        return [key, typeof pick === 'number' ? values[pick % values.length] : pick];
      }),
    ),
  }));
