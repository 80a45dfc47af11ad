import { PROGRESS_MESSAGE_MAX_CHARS, progressUpdate } from './tool-progress.js';

describe('progressUpdate', () => {
  it('keeps finite numbers and a message of one line, the secrets masked', () => {
    expect(
      progressUpdate(
        { progress: 2, total: 5, message: ' Page 2\n\tof 5 (token s3cret-t0ken) ' },
        {
          T: 's3cret-t0ken',
        },
      ),
    ).toEqual({ progress: 2, total: 5, message: 'Page 2 of 5 (token [secret])' });
  });

  it('leaves out what is no number, a total without progress, and an update that says nothing', () => {
    expect(progressUpdate({ progress: 'half', total: 4, message: 'half way' }, {})).toEqual({
      message: 'half way',
    });
    expect(progressUpdate({ progress: 1, total: Infinity }, {})).toEqual({ progress: 1 });
    expect(progressUpdate({ message: '  ' }, {})).toBeUndefined();
    expect(progressUpdate({ progress: NaN }, {})).toBeUndefined();
  });

  it('cuts a long message', () => {
    const { message } = progressUpdate({ message: 'x'.repeat(1000) }, {})!;
    expect(message).toHaveLength(PROGRESS_MESSAGE_MAX_CHARS);
    expect(message!.endsWith('…')).toBe(true);
  });
});
