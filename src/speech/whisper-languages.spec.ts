import { detectedLanguage } from './whisper-languages.js';

describe('detectedLanguage', () => {
  it.each([
    ['spanish', 'es'],
    ['Spanish', 'es'],
    ['haitian creole', 'ht'],
    ['castilian', 'es'],
    ['es', 'es'],
    ['pt-BR', 'pt'],
    ['yue', 'yue'],
  ])('reads %j as %j', (said, code) => {
    expect(detectedLanguage(said)).toBe(code);
  });

  it.each([['klingon'], ['xx'], [''], [42], [undefined]])('knows no language in %j', (said) => {
    expect(detectedLanguage(said)).toBeUndefined();
  });
});
