import { meantTool } from './tool-names.js';

const tools = new Map<string, undefined>([
  ['get_weather', undefined],
  ['book_table', undefined],
  ['bookTable', undefined],
]);

describe('meantTool', () => {
  it('is the tool a name means but for case, joining marks, a namespace, format tokens', () => {
    expect(meantTool('get_weather', tools)).toBe('get_weather');
    for (const written of [
      'getWeather',
      'GetWeather',
      'get-weather',
      ' GET WEATHER ',
      'functions.get_weather',
      'default_api.getWeather',
      'get_weather<|channel|>commentary',
    ])
      expect(meantTool(written, tools)).toBe('get_weather');
  });

  it('keeps a name as written when it means no tool, or two', () => {
    expect(meantTool('get_weathers', tools)).toBe('get_weathers');
    expect(meantTool('weather', tools)).toBe('weather');
    expect(meantTool('Book-Table', tools)).toBe('Book-Table');
    // Each of the two, written as itself, is itself.
    expect(meantTool('bookTable', tools)).toBe('bookTable');
    expect(meantTool('book_table', tools)).toBe('book_table');
  });
});
