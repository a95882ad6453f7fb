import { describe, expect, it } from 'vitest';
import { themeChoice } from './prefs.tsx';
import type { KeyValue } from '../store/persist.ts';

function saved(theme: string | null): KeyValue {
  return {
    getItem: (k) => (k.endsWith('pref:theme') ? theme : null),
    setItem: () => undefined,
    removeItem: () => undefined,
  };
}
const dark = () => 'dark' as const;
const light = () => 'light' as const;

describe('themeChoice', () => {
  it('takes ?theme=light|dark over the saved choice and the system', () => {
    expect(themeChoice('?theme=dark', saved('light'), light)).toEqual({
      theme: 'dark',
      followSystem: false,
    });
    expect(themeChoice('?embed&theme=light', saved('dark'), dark)).toEqual({
      theme: 'light',
      followSystem: false,
    });
  });

  it('?theme=auto follows the system even when the user saved a choice', () => {
    expect(themeChoice('?theme=auto', saved('light'), dark)).toEqual({
      theme: 'dark',
      followSystem: true,
    });
  });

  it('without the parameter: the saved choice, else the system', () => {
    expect(themeChoice('', saved('dark'), light)).toEqual({ theme: 'dark', followSystem: false });
    expect(themeChoice('', saved(null), dark)).toEqual({ theme: 'dark', followSystem: true });
    expect(themeChoice('?theme=purple', null, light)).toEqual({
      theme: 'light',
      followSystem: true,
    });
  });
});
