/** `-m multiport`: up to 15 ports or ranges (net/netfilter/xt_multiport.c, libxt_multiport.c). */
import { arg, fail, negate, o, type MatchExtension, type Matcher } from '../extension.ts';
import { parsePortRange } from '../values.ts';

export const multiport: MatchExtension = {
  name: 'multiport',
  supported: true,
  options: {
    '--sports': o(1, true),
    '--source-ports': o(1, true, '--sports'),
    '--dports': o(1, true),
    '--destination-ports': o(1, true, '--dports'),
    '--ports': o(1, true),
  },
  compile(mod, cx) {
    if (mod.options.length !== 1)
      fail(mod.column, 'multiport needs exactly one of --sports, --dports, --ports');
    const opt = mod.options[0] as (typeof mod.options)[number];
    const ranges = arg(opt)
      .split(',')
      .map((p) => parsePortRange(p, opt.column));
    if (ranges.length > 15) fail(opt.column, 'multiport takes at most 15 ports');
    // Bounds side by side in one typed array: lo0, hi0, lo1, hi1, ...
    const bounds = Uint16Array.from(ranges.flatMap((r) => [r.lo, r.hi]));
    const hit = (port: number) => {
      for (let i = 0; i < bounds.length; i += 2)
        if (port >= (bounds[i] as number) && port <= (bounds[i + 1] as number)) return true;
      return false;
    };
    let m: Matcher;
    if (opt.name === '--sports') m = (c) => hit(c.pkt.sport);
    else if (opt.name === '--dports') m = (c) => hit(c.pkt.dport);
    else m = (c) => hit(c.pkt.sport) || hit(c.pkt.dport);
    cx.add(negate(m, opt.negated));
  },
};
