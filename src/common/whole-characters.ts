/**
 * JSON.stringify's replacer writing each string as whole characters: half of one (a lone
 * surrogate: a client's text cut mid-emoji by UTF-16 length, a model's JSON holding `"\ud800"`, a
 * tool's result) becomes U+FFFD, as an encoder to UTF-8 writes it. JSON would carry it as the
 * escape `\ud800`, which a reader working in UTF-8 refuses (llama.cpp's parser, vLLM's tokenizer,
 * Rust's serde_json) or keeps as a string it cannot store. Pure: no Nest import.
 */
export const wholeCharacters = (_key: string, value: unknown): unknown =>
  typeof value === 'string' && !value.isWellFormed() ? value.toWellFormed() : value;
