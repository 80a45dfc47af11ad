import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenarios } from './scenario-file.js';
import { wavOf } from '../speech/wav.js';

const parse = (data: unknown) => parseScenarios(JSON.stringify(data), 'checks.json');
const turn = { user: 'What is the weather in Rome?' };

describe('parseScenarios', () => {
  it('takes a file of scenarios, runs once each unless it says; in YAML too', async () => {
    const file = await parse({ scenarios: [{ name: 'w', turns: [turn] }] });
    expect(file).toEqual({ runs: 1, scenarios: [{ name: 'w', turns: [turn] }], audio: new Map() });
    const yaml = [
      'runs: 2',
      'scenarios:',
      '  - name: w   # the weather',
      '    turns:',
      `      - user: ${turn.user}`,
      '        expect: { tool_calls: [{ name: get_weather, arguments: { city: Rome } }] }',
    ].join('\n');
    expect(await parseScenarios(yaml, 'checks.yaml')).toEqual({
      runs: 2,
      audio: new Map(),
      scenarios: [
        {
          name: 'w',
          turns: [
            {
              ...turn,
              expect: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] },
            },
          ],
        },
      ],
    });
    await expect(parseScenarios('scenarios: [\n', 'checks.yml')).rejects.toThrow(
      /^checks\.yml: not valid YAML: /,
    );
  });

  it('names the file, the scenario, the turn and the field of what it refuses', async () => {
    await expect(parseScenarios('{', 'checks.json')).rejects.toThrow(
      /^checks\.json: not valid JSON: /,
    );
    await expect(parse({ scenarios: [] })).rejects.toThrow(
      "checks.json: field 'scenarios' must NOT have fewer than 1 items",
    );
    await expect(parse({ scenarios: [{ name: 'w' }] })).rejects.toThrow(
      `checks.json: scenario #0 ("w"): field 'turns' is missing`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [turn, { user: '' }] }] }),
    ).rejects.toThrow(
      `checks.json: scenario #0 ("w"): turn #1: field 'user' must NOT have fewer than 1 characters`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ ...turn, expect: { tool_calls: [{}] } }] }] }),
    ).rejects.toThrow(
      `checks.json: scenario #0 ("w"): turn #0: field 'expect.tool_calls.0.name' is missing`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', runs: 2, min_passes: 3, turns: [turn] }] }),
    ).rejects.toThrow(
      `checks.json: scenario #0 ("w"): field 'min_passes' is more than its 2 run(s)`,
    );
    await expect(parse({ runs: 0, scenarios: [{ name: 'w', turns: [turn] }] })).rejects.toThrow(
      "checks.json: field 'runs' must be >= 1",
    );
    await expect(parse({ scenario: [] })).rejects.toThrow(
      "checks.json: field 'scenarios' is missing",
    );
    const at = 'checks.json: scenario #0 ("w"): turn #0';
    await expect(parse({ scenarios: [{ name: 'w', turns: [{ expect: {} }] }] })).rejects.toThrow(
      `${at}: give one of "user" (the user's words), "audio" (a file of them said), "say" (the agent's) or "note" (the application's)`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ ...turn, say: 'Hello.' }] }] }),
    ).rejects.toThrow(
      `${at}: give one of "user" (the user's words), "audio" (a file of them said), "say" (the agent's) or "note" (the application's), not "user" and "say"`,
    );
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ ...turn, expect: { transcript: 'rome' } }] }] }),
    ).rejects.toThrow(`${at}: field 'expect.transcript' is an "audio" turn's`);
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ ...turn, expect: { text: '(' } }] }] }),
    ).rejects.toThrow(`${at}: field 'expect.text' is not a regular expression`);
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ ...turn, respond: true }] }] }),
    ).rejects.toThrow(`${at}: field 'respond' is a note's`);
    await expect(
      parse({ scenarios: [{ name: 'w', turns: [{ note: 'Paid.', expect: { text: 'x' } }] }] }),
    ).rejects.toThrow(`${at}: field 'expect' needs "respond": true`);
  });

  describe('audio turns', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-audio-'));
    const file = (name: string, bytes: Buffer) => (writeFileSync(join(dir, name), bytes), name);
    // Where the scenarios file is: an audio turn's path is read from its directory.
    const parseIn = (turns: unknown[]) =>
      parseScenarios(
        JSON.stringify({ scenarios: [{ name: 'w', turns }] }),
        join(dir, 'checks.json'),
      );
    const at = `${join(dir, 'checks.json')}: scenario #0 ("w"): turn #0: field 'audio'`;

    it('reads a WAV of another rate and channels as the engine takes speech: 16 kHz mono', async () => {
      // A second at 48 kHz, stereo, 16-bit: a tone in both channels.
      const frames = 48_000;
      const stereo = Buffer.alloc(frames * 4);
      for (let i = 0; i < frames; i++) {
        const v = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 48_000));
        stereo.writeInt16LE(v, 4 * i);
        stereo.writeInt16LE(v, 4 * i + 2);
      }
      const wav = wavOf(stereo, 48_000);
      wav.writeUInt16LE(2, 22); // two channels
      wav.writeUInt32LE(48_000 * 4, 28);
      wav.writeUInt16LE(4, 32);
      const audio = { audio: file('rome.wav', wav), expect: { transcript: 'rome' } };
      const parsed = await parseIn([audio, { audio: file('raw.pcm', Buffer.alloc(3200, 1)) }]);
      const [first, second] = parsed.scenarios[0]!.turns;
      const pcm = parsed.audio.get(first!)!;
      // A second at 16 kHz, 16-bit (the resampler may keep a few samples back at the end).
      expect(pcm.length).toBeGreaterThan(31_000);
      expect(pcm.length).toBeLessThanOrEqual(32_000);
      const peak = Math.max(
        ...Array.from({ length: 4000 }, (_, i) => Math.abs(pcm.readInt16LE(8000 + 2 * i))),
      );
      expect(peak).toBeGreaterThan(7000);
      expect(peak).toBeLessThan(9000);
      // Not a WAV: the engine's PCM as it is.
      expect(parsed.audio.get(second!)).toEqual(Buffer.alloc(3200, 1));
    });

    it('names the turn and the file it cannot use', async () => {
      await expect(parseIn([{ audio: 'gone.wav' }])).rejects.toThrow(
        `${at}: "gone.wav" cannot be read: ENOENT`,
      );
      await expect(parseIn([{ audio: file('odd.pcm', Buffer.alloc(3)) }])).rejects.toThrow(
        `${at}: "odd.pcm" is no WAV, and as PCM it has an odd number of bytes`,
      );
      await expect(
        parseIn([{ audio: file('empty.wav', wavOf(Buffer.alloc(0), 16_000)) }]),
      ).rejects.toThrow(`${at}: "empty.wav" holds no audio`);
      const alaw = wavOf(Buffer.alloc(1600), 8000);
      alaw.writeUInt16LE(6, 20); // G.711 A-law
      alaw.writeUInt16LE(8, 34);
      await expect(parseIn([{ audio: file('alaw.wav', alaw) }])).rejects.toThrow(
        `${at}: "alaw.wav" is a WAV of 8-bit samples in format 6, which is neither integer PCM nor float`,
      );
    });
  });
});
