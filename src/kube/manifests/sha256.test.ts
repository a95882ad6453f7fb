import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { sha256Text } from './sha256.ts';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

describe('sha256Text', () => {
  it('is SHA-256 (FIPS 180-4 examples)', () => {
    expect(hex(sha256Text('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hex(sha256Text(''))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('gives what @noble/hashes gives, across block boundaries and for non-ASCII text', () => {
    const chars = 'ab/#-0é🙂z';
    let seed = 1;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let len = 0; len < 300; len++)
      for (let k = 0; k < 3; k++) {
        let s = '';
        for (let i = 0; i < len; i++) s += chars[rand(k === 0 ? 5 : chars.length)];
        expect(hex(sha256Text(s))).toBe(hex(sha256(new TextEncoder().encode(s))));
      }
  });
});
