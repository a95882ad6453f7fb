/** `-m iprange --src-range/--dst-range A-B` (net/netfilter/xt_iprange.c). */
import { parseIPv4 } from '../../ip.ts';
import {
  arg,
  fail,
  negate,
  o,
  type MatchExtension,
  type Matcher,
  type OptionSpec,
} from '../extension.ts';

function range(opt: OptionSpec): Matcher {
  const [a, b] = arg(opt).split('-');
  const lo = a === undefined ? null : parseIPv4(a);
  const hi = b === undefined ? lo : parseIPv4(b);
  if (lo === null || hi === null)
    return fail(opt.column, `'${arg(opt)}' is not a range like 10.0.0.1-10.0.0.9`);
  const field = opt.name === '--src-range' ? 'srcNum' : 'dstNum';
  return negate((c) => {
    const n = c[field];
    return typeof n === 'number' && n >= lo && n <= hi;
  }, opt.negated);
}

export const iprange: MatchExtension = {
  name: 'iprange',
  supported: true,
  options: { '--src-range': o(1, true), '--dst-range': o(1, true) },
  compile(mod, cx) {
    for (const opt of mod.options) cx.add(range(opt));
  },
};
