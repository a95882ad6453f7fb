import { describe, expect, it } from 'vitest';
import { TOPICS } from '../../exercise/types.ts';
import { EXERCISE_EN, EXERCISE_ZH } from './i18n.ts';

const params = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('exercise UI text', () => {
  it('every key has Chinese text with the same parameters', () => {
    for (const [k, en] of Object.entries(EXERCISE_EN)) {
      const zh = EXERCISE_ZH[k as keyof typeof EXERCISE_EN];
      expect(zh, k).toMatch(/\S/);
      expect(params(zh), k).toEqual(params(en));
    }
  });
  it('every topic has a name in both languages', () => {
    for (const t of TOPICS) {
      expect(EXERCISE_EN).toHaveProperty(`topic.${t}`);
      expect(EXERCISE_ZH).toHaveProperty(`topic.${t}`);
    }
  });
});
