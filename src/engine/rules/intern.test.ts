/** The interner finds exactly the known words, and gives back the known string itself. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IPTABLES_WORDS, Interner } from './intern.ts';

describe('Interner', () => {
  const known = ['-A', '-j', '-m', 'ab', 'ba', 'aXb', 'a', 'KUBE-SERVICES', 'x'.repeat(63)];
  const interner = new Interner([...known, '', 'y'.repeat(64), 'é']);

  it('finds a word anywhere in a line, and only a whole known word', () => {
    const piece = fc.constantFrom(...known, 'b', 'aYb', 'KUBE-SERVICEZ', 'x'.repeat(64), 'é', ' ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.nat(), fc.nat(), (parts, a, b) => {
        const line = parts.join('');
        const s = line.length ? a % line.length : 0;
        const e = s + (line.length > s ? b % (line.length - s + 1) : 0);
        const word = line.slice(s, e);
        const found = interner.find(line, s, e);
        if (known.includes(word)) expect(found).toBe(known[known.indexOf(word)]);
        else expect(found).toBeNull();
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves out words it does not keep: empty, 64 characters or more, non-ASCII first', () => {
    expect(interner.find('y'.repeat(64), 0, 64)).toBeNull();
    expect(interner.find('é', 0, 1)).toBeNull();
    expect(interner.find('ab', 1, 1)).toBeNull();
  });

  it('knows the words of kube-proxy dumps', () => {
    const line = '-A KUBE-SERVICES -m comment --comment x -j KUBE-NODEPORTS';
    const words = line.split(' ');
    let at = 0;
    const found = words.map((w) => {
      const f = IPTABLES_WORDS.find(line, at, at + w.length);
      at += w.length + 1;
      return f;
    });
    expect(found).toEqual([
      '-A',
      'KUBE-SERVICES',
      '-m',
      'comment',
      '--comment',
      null,
      '-j',
      'KUBE-NODEPORTS',
    ]);
  });
});
