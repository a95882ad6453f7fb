/**
 * Share links are input from anyone: size caps (length, inflated size), field checks, and
 * property tests that decoding never throws or hangs on arbitrary or damaged links.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Deflate, strToU8 } from 'fflate';
import {
  MAX_INFLATED,
  MAX_LINK,
  decodeShare,
  encodeShare,
  inflateCapped,
  readShare,
  toBase64Url,
} from './share.ts';
import type { LabDoc } from './lab-store.ts';

const DOC: LabDoc = {
  scenarioId: '000-vip22',
  variant: 'lb-service',
  mode: null,
  manifests: 'kind: Service\n# edited\n',
  path: { from: 'client/laptop', to: 'vip:22', proto: 'tcp' },
  run: 1,
  step: 14,
};

/** A link of any JSON (valid deflate), as a hand-made link would be. */
function linkOf(json: unknown): string {
  const parts: Uint8Array[] = [];
  const d = new Deflate({ level: 6 }, (c) => void parts.push(c));
  d.push(strToU8(JSON.stringify(json)), true);
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) all.set(p, (at += p.length) - p.length);
  return toBase64Url(all);
}

/** Every field of a decoded doc has the type and range the lab relies on. */
function wellTyped(d: ReturnType<typeof decodeShare>): boolean {
  if (d === null) return true;
  const idOk = (s: unknown) => typeof s === 'string' && s.length > 0 && s.length <= 200;
  const n = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  return (
    idOk(d.scenarioId) &&
    (d.variant === null || idOk(d.variant)) &&
    (d.manifests === undefined || typeof d.manifests === 'string') &&
    (d.path === undefined ||
      (typeof d.path?.from === 'string' &&
        typeof d.path.to === 'string' &&
        (d.path.proto === undefined || ['tcp', 'udp', 'sctp'].includes(d.path.proto)))) &&
    n(d.run) &&
    n(d.step)
  );
}

describe('share links', () => {
  it('round-trip the doc', () => {
    expect(decodeShare(encodeShare(DOC, 'kind: Service\n'))).toEqual(DOC);
  });

  it('stop a link that inflates to 100 MB after a bounded amount of work', () => {
    // 100 MB of one repeated byte inside the manifests field: about 100 KB of link, as reported.
    const parts: Uint8Array[] = [];
    const d = new Deflate({ level: 9 }, (c) => void parts.push(c));
    d.push(strToU8('{"v":1,"s":"000-vip22","m":"'));
    const mb = strToU8('a'.repeat(1024 * 1024));
    for (let i = 0; i < 100; i++) d.push(mb);
    d.push(strToU8('"}'), true);
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) bytes.set(p, (at += p.length) - p.length);
    const link = toBase64Url(bytes);
    expect(link.length).toBeLessThan(MAX_LINK);
    expect(readShare(link)).toEqual({ ok: false, reason: 'too-big' });
    expect(inflateCapped(bytes, MAX_INFLATED)).toBe('too-big');
  });

  it('refuse a link longer than any the lab writes', () => {
    expect(readShare('A'.repeat(MAX_LINK + 1))).toEqual({ ok: false, reason: 'too-long' });
  });

  it('say a cut-short link is damaged', () => {
    const link = encodeShare(DOC, '');
    expect(readShare(link.slice(0, link.length - 6))).toMatchObject({ ok: false });
  });

  it('drop malformed fields instead of failing on every later visit', () => {
    const cases: [unknown, Partial<LabDoc>][] = [
      [
        { v: 1, s: 'x', st: 'abc', r: -3 },
        { step: 0, run: 0 },
      ],
      [
        { v: 1, s: 'x', st: 1.5, r: 1e12 },
        { step: 0, run: 0 },
      ],
      [{ v: 1, s: 'x', st: 7 }, { step: 7 }],
      [{ v: 1, s: 'x', f: 3, t: 'vip:22' }, {}],
      [
        { v: 1, s: 'x', f: 'client/a', t: 'vip:22', p: 'icmp' },
        { path: { from: 'client/a', to: 'vip:22' } },
      ],
      [{ v: 1, s: 'x', va: 42, m: ['a'] }, { variant: null }],
    ];
    for (const [wire, want] of cases) {
      const r = readShare(linkOf(wire));
      expect(r.ok, JSON.stringify(wire)).toBe(true);
      if (!r.ok) continue;
      expect(r.doc).toMatchObject(want);
      expect(wellTyped(r.doc)).toBe(true);
    }
    expect(readShare(linkOf({ v: 1, s: { a: 1 } }))).toEqual({ ok: false, reason: 'invalid' });
    expect(readShare(linkOf([1, 2]))).toEqual({ ok: false, reason: 'invalid' });
    expect(readShare(linkOf({ v: 2, s: 'x' }))).toEqual({ ok: false, reason: 'invalid' });
    expect(readShare(linkOf({ v: 1, s: 'x'.repeat(201) }))).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });

  it('never throw on arbitrary text (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const r = readShare(s);
        return r.ok ? wellTyped(r.doc) : typeof r.reason === 'string';
      }),
      { numRuns: 2000 },
    );
  });

  it('never throw on damaged valid links (property)', () => {
    const valid = encodeShare(DOC, '');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/%#';
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('set'), at: fc.nat(), ch: fc.constantFrom(...alphabet) }),
      fc.record({ kind: fc.constant('cut'), at: fc.nat() }),
      fc.record({ kind: fc.constant('insert'), at: fc.nat(), s: fc.string({ maxLength: 8 }) }),
    );
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 6 }), (edits) => {
        let s = valid;
        for (const e of edits) {
          const at = e.at % (s.length + 1);
          if (e.kind === 'set') s = s.slice(0, at) + e.ch + s.slice(at + 1);
          else if (e.kind === 'cut') s = s.slice(0, at);
          else s = s.slice(0, at) + e.s + s.slice(at);
        }
        const r = readShare(s);
        return r.ok ? wellTyped(r.doc) : true;
      }),
      { numRuns: 3000 },
    );
  });

  it('never throw on arbitrary JSON inside a valid deflate (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (json) => {
        const r = readShare(linkOf(json));
        return r.ok ? wellTyped(r.doc) : true;
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(
        fc.record(
          {
            v: fc.constantFrom(1, 1, 2, '1'),
            s: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
            va: fc.anything(),
            m: fc.anything(),
            f: fc.anything(),
            t: fc.anything(),
            p: fc.anything(),
            r: fc.anything(),
            st: fc.anything(),
          },
          { requiredKeys: ['v', 's'] },
        ),
        (wire) => {
          const r = readShare(linkOf(wire));
          return r.ok ? wellTyped(r.doc) : true;
        },
      ),
      { numRuns: 1000 },
    );
  });
});
