import { describe, expect, it } from 'vitest';
import { fromBase64 } from './packet-bytes.ts';

describe('fromBase64 (Retis packet.data)', () => {
  it('decodes with or without padding, and keeps only the first max bytes', () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
    const b64 = Buffer.from(bytes).toString('base64');
    expect([...(fromBase64(b64) ?? [])]).toEqual([...bytes]);
    expect([...(fromBase64(b64.replace(/=+$/, '')) ?? [])]).toEqual([...bytes]);
    expect([...(fromBase64(b64, 10) ?? [])]).toEqual([...bytes.slice(0, 10)]);
    expect([...(fromBase64(b64, 11) ?? [])]).toEqual([...bytes.slice(0, 11)]);
  });

  it('is null for what is not base64', () => {
    expect(fromBase64('not base64!')).toBeNull();
    expect(fromBase64('abcde')).toBeNull();
    expect(fromBase64('')?.length).toBe(0);
  });
});
