import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { digestRules } from './rules-view.ts';
import { digestRules as old } from './rules-view-old.tmp.ts';
it('same digest', () => {
  const t = readFileSync('/tmp/gen-ipt.txt', 'utf8');
  const lines = new Set([5, 100, 2000, 30000]);
  let t0 = performance.now(); const a = old(t, lines); const ta = performance.now() - t0;
  t0 = performance.now(); const b = digestRules(t, lines); const tb = performance.now() - t0;
  console.log('old', ta.toFixed(0), 'new', tb.toFixed(0));
  expect(b).toEqual(a);
  const pieces = ['*nat', '*filter', ':X ACCEPT [0:0]', ':Y - [0:0]', ': ', ':', '-A X -j Y', '-I Y 1 -j X', '  -A X -p tcp', '-A Z -j X\r', 'COMMIT', '# c', '', ':X', '-AX', '-A  X'];
  fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), fc.array(fc.nat(40)), (ls, m) => {
    const text = ls.join('\n');
    expect(digestRules(text, new Set(m))).toEqual(old(text, new Set(m)));
  }), { numRuns: 2000 });
});
