import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { decodeExercise, encodeExercise, MAX_EXERCISE_BYTES, urlExerciseId } from './url.ts';

const b64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

describe('exercises in links', () => {
  it('round-trips an exercise, Chinese included', () => {
    const text = 'title: { en: "Hi", zh: "你好" }\n';
    const enc = encodeExercise(text);
    if (!('param' in enc)) throw new Error(enc.error);
    expect(decodeExercise(enc.param)).toEqual({ text });
    expect(urlExerciseId(text)).toBe(urlExerciseId(text));
    expect(urlExerciseId(text)).not.toBe(urlExerciseId(`${text} `));
  });

  it('stops unpacking at the size limit: a small link cannot inflate to megabytes', () => {
    const bomb = b64url(deflateSync(new Uint8Array(4 * 1024 * 1024), { level: 9 }));
    expect(bomb.length).toBeLessThan(8 * 1024);
    expect(decodeExercise(bomb)).toEqual({
      error: `the exercise in the link unpacks to more than ${MAX_EXERCISE_BYTES / 1024} KB`,
    });
  });

  it('says when a link is damaged', () => {
    expect(decodeExercise('AAAA')).toEqual({
      error: 'the exercise link is damaged (it does not unpack)',
    });
    expect(decodeExercise('x'.repeat(49 * 1024))).toEqual({
      error: 'the exercise link is too long',
    });
  });
});
