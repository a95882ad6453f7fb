import { describe, expect, it } from 'vitest';
import { tabToggleKey } from './keys.ts';

describe('tabToggleKey', () => {
  it("names Monaco's own binding per platform", () => {
    expect(tabToggleKey('Win32')).toBe('Ctrl+M');
    expect(tabToggleKey('Linux x86_64')).toBe('Ctrl+M');
    expect(tabToggleKey('MacIntel')).toBe('Ctrl+Shift+M');
  });
});
