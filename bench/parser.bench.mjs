// Parser throughput on ~1 MB of synthetic model output (prose with 50 calls of mixed types):
// MB/s fed whole, and the ratio of feeding it in 1-character deltas to feeding it whole; then
// what one call costs, whole and fed a character at a time.
// Run: npm run bench:parser   (builds dist/ first)
import { ToolCallTextParser } from '../dist/llm/parsing/tool-call-text.parser.js';

const schemas = new Map([
  ['search', { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' }, exact: { type: 'boolean' }, filters: { type: 'object' } } }],
]);
/** One Qwen3-Coder XML call of the search tool, ~250 characters. */
function call(i) {
  return `<tool_call>\n<function=search>\n<parameter=q>\nitem ${i} <b>bold</b>\n</parameter>\n<parameter=limit>\n${i}\n</parameter>\n<parameter=exact>\ntrue\n</parameter>\n<parameter=filters>\n{"tag": "t${i}", "n": [1, 2]}\n</parameter>\n</function>\n</tool_call>\n`;
}
const sentence = 'The quick brown fox jumps over the lazy dog, and 3.5 < 4 is true. ';
const gap = sentence.repeat(Math.ceil(20000 / sentence.length));
let input = '';
for (let i = 0; i < 50; i++) {
  input += gap;
  input += call(i);
}
const mb = input.length / 1e6;

const splits = new Map();
/** The input cut into deltas once per size, outside the timed loop (deltas arrive as strings). */
function split(size) {
  if (!splits.has(size)) {
    const deltas = [];
    for (let i = 0; i < input.length; i += size) deltas.push(input.slice(i, i + size));
    splits.set(size, deltas);
  }
  return splits.get(size);
}

/** A parser that forwards every delta as text: the cost of the loop and one call per delta. */
class Passthrough {
  feed(delta, sink) {
    sink.text(delta);
  }
  end() {}
}

/** Feeds the first `count` deltas of the input cut into `size`-character deltas. */
function run(size, Parser = ToolCallTextParser, count = Infinity) {
  const parser = new Parser(schemas);
  let calls = 0;
  let chars = 0;
  // The sink form of the parser (feed/end): what the engine's decoder uses.
  const sink = { text: (t) => (chars += t.length), reasoning: (t) => (chars += t.length), call: () => calls++ };
  const deltas = split(size);
  const n = Math.min(count, deltas.length);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) parser.feed(deltas[i], sink);
  parser.end(sink);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (Parser === ToolCallTextParser && n === deltas.length && calls !== 50) throw new Error(`expected 50 calls, got ${calls}`);
  return ms;
}

/**
 * The best of 15 runs, after warming the same run for 200 ms: a run of ~1 ms called a handful of
 * times may not reach the optimising compiler yet, and the whole parse then measured 1-4 ms from one
 * process to the next (the ratio with it); warmed, it stays near its steady cost.
 */
function best(...args) {
  for (const end = Date.now() + 200; Date.now() < end; ) run(...args);
  return Math.min(...Array.from({ length: 15 }, () => run(...args)));
}
const whole = best(input.length);
const perChar = best(1);
const perToken = best(4);
const floor = best(1, Passthrough);
console.log(`input: ${mb.toFixed(2)} MB, 50 calls`);
console.log(`whole:        ${whole.toFixed(1)} ms  (${(mb / (whole / 1000)).toFixed(1)} MB/s)`);
console.log(`4-char deltas: ${perToken.toFixed(1)} ms  (${(mb / (perToken / 1000)).toFixed(1)} MB/s)`);
console.log(`1-char deltas: ${perChar.toFixed(1)} ms  (${((perChar * 1e6) / input.length).toFixed(1)} ns per delta)`);
console.log(`  of which the loop and one call per delta (a pass-through parser): ${floor.toFixed(1)} ms`);
console.log(`ratio 1-char / whole: ${(perChar / whole).toFixed(2)}x (goal <= 2x)`);
console.log(`  the pass-through alone / whole: ${(floor / whole).toFixed(2)}x (the least any parser that hands each delta on can reach)`);
// Linear means a constant cost per character, whatever the length of the output.
const quarter = input.length >> 2;
const perCharQuarter = best(1, ToolCallTextParser, quarter);
console.log(`linearity, 1-char deltas: ${((perCharQuarter * 1e6) / quarter).toFixed(1)} ns/char on the first 1/4 of the input, ${((perChar * 1e6) / input.length).toFixed(1)} ns/char on all of it`);

// The calls alone: 500 calls between short sentences, where the parser does its real work. What a
// call costs fed a character at a time, against fed whole (the staging and the one read per call).
let dense = '';
for (let i = 0; i < 500; i++) dense += `Checking ${i}. ${call(i)}`;
const denseChars = [...dense];
function runDense(deltas) {
  const parser = new ToolCallTextParser(schemas);
  let calls = 0;
  const sink = { text: () => {}, reasoning: () => {}, call: () => calls++ };
  const start = process.hrtime.bigint();
  for (let i = 0; i < deltas.length; i++) parser.feed(deltas[i], sink);
  parser.end(sink);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (calls !== 500) throw new Error(`expected 500 calls, got ${calls}`);
  return ms;
}
function bestDense(deltas) {
  for (const end = Date.now() + 200; Date.now() < end; ) runDense(deltas);
  return Math.min(...Array.from({ length: 15 }, () => runDense(deltas)));
}
const denseWhole = bestDense([dense]);
const denseChar = bestDense(denseChars);
console.log(
  `calls (500 between short sentences): ${((denseWhole * 1000) / 500).toFixed(1)} us a call whole, ${((denseChar * 1000) / 500).toFixed(1)} us fed a character at a time (${(denseChar / denseWhole).toFixed(2)}x)`,
);
