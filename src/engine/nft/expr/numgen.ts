/**
 * `numgen random mod N [offset O]` (net/netfilter/nft_numgen.c): a uniform number in
 * [O, O+N). kube-proxy picks an endpoint with `numgen random mod N vmap { 0 : goto ..., ... }`.
 * The lab draws it through the chooser, so every endpoint can be enumerated. `numgen inc`
 * counts packets, which the lab does not keep: it is an unsupported step.
 */
import { fail, unsupported } from '../cursor.ts';
import { TYPES } from '../datatypes.ts';
import type { KeyExpr } from '../types.ts';
import type { KeyFamily } from './family.ts';

const numgen: KeyFamily = {
  words: ['numgen'],
  parse(c): KeyExpr {
    const at = c.peek();
    c.i++;
    const mode = c.word();
    if (mode !== 'random' && mode !== 'inc') fail(c.here(), "'numgen' is 'random' or 'inc' here");
    c.i++;
    if (c.word() !== 'mod') fail(c.here(), "'numgen' needs 'mod N' here");
    c.i++;
    const n = Number(c.word());
    if (!Number.isInteger(n) || n < 1 || n > 0xffffffff)
      fail(c.here(), `'mod ${c.word() ?? ''}' needs a whole number from 1 up`);
    c.i++;
    let offset = 0;
    if (c.word() === 'offset') {
      offset = Number(c.word(1));
      if (!Number.isInteger(offset) || offset < 0)
        fail(c.peek(1) ?? c.here(), "'offset' needs a whole number");
      c.i += 2;
    }
    const text = `numgen ${mode} mod ${n}${offset ? ` offset ${offset}` : ''}`;
    if (mode === 'inc') unsupported(at, 'numgen inc (a packet counter the lab does not keep)');
    return {
      text,
      type: TYPES.integer,
      stateful: true,
      get: (x) => offset + x.random(n, text),
    };
  },
};

export const NUMGEN: readonly KeyFamily[] = [numgen];
