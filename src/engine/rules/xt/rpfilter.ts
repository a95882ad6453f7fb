/**
 * `-m rpfilter [--loose] [--validmark] [--accept-local] [--invert]`: a reverse-path check in a
 * rule (net/ipv4/netfilter/ipt_rpfilter.c, rpfilter_mt and rpfilter_lookup_reverse). The source
 * is looked up as a destination; the check passes when the route is unicast and leaves through
 * the interface the packet came in on (any interface with --loose), or is local with
 * --accept-local. Packets from lo always pass. Felix drops packets from workloads that fail it
 * (`-m rpfilter --invert --validmark -j DROP` in raw cali-PREROUTING, felix/rules/static.go).
 * The lab has one routing table, so --validmark (route by the packet's mark) changes nothing.
 */
import { isLocalAddr, longestMatch } from '../../host.ts';
import { ipToNum } from '../../ip.ts';
import { o, option, type MatchExtension } from '../extension.ts';

export const rpfilter: MatchExtension = {
  name: 'rpfilter',
  supported: true,
  options: {
    '--loose': o(0),
    '--validmark': o(0),
    '--accept-local': o(0),
    '--invert': o(0),
  },
  compile(mod, cx) {
    const loose = option(mod, '--loose') !== undefined;
    const acceptLocal = option(mod, '--accept-local') !== undefined;
    const invert = option(mod, '--invert') !== undefined;
    cx.add((c) => {
      if (c.inIf === 'lo') return !invert;
      const h = c.host;
      let ok = false;
      if (isLocalAddr(h, c.pkt.src)) ok = acceptLocal;
      else {
        const n = ipToNum(c.pkt.src);
        const r = n === null ? null : longestMatch(h, n);
        if (r && r.type === 'unicast') {
          const devs = r.nexthops.length
            ? r.nexthops.map((x) => x.dev ?? viaDev(h, x.via))
            : [r.dev ?? (r.via ? viaDev(h, r.via) : null)];
          ok = loose || devs.includes(c.inIf);
        }
      }
      return ok !== invert;
    });
  },
};

function viaDev(h: Parameters<typeof longestMatch>[0], via: string): string | null {
  const n = ipToNum(via);
  return (n === null ? null : longestMatch(h, n))?.dev ?? null;
}
