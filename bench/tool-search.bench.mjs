// Deferred tools and `tool_search`: what a request carries with a large set offered whole against
// the same set deferred, and what a search costs the engine. One run, ratios in that run.
//   npm run bench:tool-search          (SIZES=200,1000 QUERIES=200)
import { validateToolDefinitions } from '../dist/tools/tool-validation.js';
import { searchTools } from '../dist/tools/tool-index.js';

const SIZES = (process.env.SIZES ?? '200,1000').split(',').map(Number);
const QUERIES = Number(process.env.QUERIES ?? 200);

const THINGS = [
  'invoice',
  'refund',
  'order',
  'shipment',
  'delivery address',
  'password',
  'subscription',
  'appointment',
  'support ticket',
  'payment card',
  'warranty claim',
  'loyalty points',
  'gift card',
  'store hours',
  'return label',
  'delivery slot',
  'prescription',
  'insurance policy',
  'table booking',
  'room booking',
];
const ACTIONS = [
  ['get', 'Reads'],
  ['create', 'Creates'],
  ['update', 'Changes'],
  ['cancel', 'Cancels'],
  ['list', 'Lists'],
  ['search', 'Searches'],
  ['check', 'Checks the status of'],
  ['send', 'Sends'],
  ['confirm', 'Confirms'],
  ['delete', 'Deletes'],
];
const REGIONS = ['', 'eu', 'us', 'uk', 'apac'];

/** `size` tools of a help desk, each with a description and three described parameters. */
function toolSet(size, deferred) {
  const tools = [];
  for (let i = 0; tools.length < size; i++) {
    const thing = THINGS[i % THINGS.length];
    const [verb, does] = ACTIONS[Math.floor(i / THINGS.length) % ACTIONS.length];
    const region = REGIONS[Math.floor(i / (THINGS.length * ACTIONS.length)) % REGIONS.length];
    const name = [verb, ...thing.split(' '), region].filter(Boolean).join('_');
    tools.push({
      name,
      description: `${does} a customer's ${thing}${region ? ` in the ${region.toUpperCase()} store` : ''}. Use it when the user asks to ${verb} their ${thing}; it answers with the ${thing}'s record as JSON.`,
      url: `https://desk.example/api/${name}`,
      method: verb === 'get' || verb === 'list' ? 'GET' : 'POST',
      parameters: {
        type: 'object',
        properties: {
          customer_id: { type: 'string', description: "The customer's account number" },
          [`${thing.replace(' ', '_')}_id`]: { type: 'string', description: `The ${thing}'s id` },
          note: { type: 'string', description: 'Anything the user added' },
        },
        required: ['customer_id'],
      },
      ...(deferred && { deferred: true }),
    });
  }
  return tools;
}

/** The `tools` array of a request offering `tools`, as the engine sends it. */
const requestBytes = (tools) =>
  JSON.stringify(
    tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    })),
  ).length;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`deferred tools and tool_search; ${QUERIES} searches per size`);
for (const size of SIZES) {
  const always = toolSet(size, false);
  const { tools } = validateToolDefinitions(
    [{ type: 'tool_search', name: 'find_tools' }, ...toolSet(size, true)],
    'bench',
  );
  const search = tools[0];
  const queries = Array.from({ length: QUERIES }, (_, i) => {
    const thing = THINGS[(i * 7) % THINGS.length];
    const [verb] = ACTIONS[(i * 3) % ACTIONS.length];
    return `${verb} my ${thing}`;
  });
  // A fresh set of the same tools: its index is made by the first search.
  const started = performance.now();
  searchTools(queries[0], { tools }, 5);
  const firstMs = performance.now() - started;
  const times = [];
  let found = 0;
  for (const query of queries) {
    const t = performance.now();
    const hits = searchTools(query, { tools }, 5);
    times.push(performance.now() - t);
    const [verb, , ...rest] = query.split(' ');
    if (hits.some((h) => h.name.startsWith(`${verb}_${rest.join('_')}`))) found++;
  }
  const whole = requestBytes(always);
  // Deferred: the search alone, then the search and the five tools one search found.
  const searchOnly = requestBytes([search]);
  const afterSearch = requestBytes([search, ...searchTools(queries[0], { tools }, 5)]);
  console.log(`\n${size} tools`);
  console.log(
    `  request tools: whole set ${(whole / 1024).toFixed(1)} KiB (~${Math.round(whole / 4)} tokens); deferred: ${searchOnly} B before a search, ${(afterSearch / 1024).toFixed(1)} KiB after one (ratio ${(afterSearch / whole).toFixed(3)}x)`,
  );
  console.log(
    `  search: first (index made) ${firstMs.toFixed(2)} ms, then p50 ${median(times).toFixed(3)} ms, max ${Math.max(...times).toFixed(3)} ms; the asked tool (of any region) among the 5 found in ${found} of ${QUERIES}`,
  );
}
