/**
 * `fib saddr|daddr [. iif|. oif|. mark] type`: the route type the kernel's FIB gives an
 * address (net/netfilter/nft_fib.c, nft_fib_ipv4.c). `fib daddr type local` is true when the
 * destination is an address of this host; with `. iif` only on the input interface.
 */
import { addrType } from '../../host.ts';
import { fail } from '../cursor.ts';
import { FIB_ADDRTYPE, TYPES } from '../datatypes.ts';
import type { KeyExpr } from '../types.ts';
import type { KeyFamily } from './family.ts';

const fib: KeyFamily = {
  words: ['fib'],
  parse(c): KeyExpr {
    const at = c.peek();
    c.i++;
    const which = c.word();
    if (which !== 'saddr' && which !== 'daddr')
      fail(c.here(), "'fib' reads saddr or daddr here", 'write fib daddr type local');
    c.i++;
    let limit: 'iif' | 'oif' | null = null;
    let text = `fib ${which}`;
    while (c.isPunct('.')) {
      const m = c.word(1);
      if (m !== 'iif' && m !== 'oif' && m !== 'mark')
        fail(c.peek(1) ?? c.here(), "fib's modifiers are . iif, . oif and . mark");
      c.i += 2;
      text += ` . ${m}`;
      if (m !== 'mark') limit = m;
    }
    const result = c.word();
    if (result !== 'type')
      fail(c.here() ?? at, `the lab reads 'fib ... type', not 'fib ... ${result ?? ''}'`);
    c.i++;
    text += ' type';
    return {
      text,
      type: TYPES.fib_addrtype,
      get: (x) => {
        const ip = which === 'saddr' ? x.pkt.src : x.pkt.dst;
        const iface = limit === 'iif' ? x.inIf : limit === 'oif' ? x.outIf : null;
        const t = addrType(x.host, ip, iface);
        return FIB_ADDRTYPE[t.toLowerCase()] ?? 0;
      },
    };
  },
};

export const FIB: readonly KeyFamily[] = [fib];
