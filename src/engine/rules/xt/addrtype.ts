/**
 * `-m addrtype --src-type/--dst-type`: the address's route type on this host, as the kernel's
 * routing table classifies it (net/netfilter/xt_addrtype.c, inet_addr_type_dev_table).
 * kube-proxy sends NodePorts to KUBE-NODEPORTS with `--dst-type LOCAL`.
 */
import { addrType, type AddrType } from '../../host.ts';
import { arg, fail, negate, o, type MatchExtension } from '../extension.ts';

const ADDR_TYPES: readonly AddrType[] = [
  'UNSPEC',
  'UNICAST',
  'LOCAL',
  'BROADCAST',
  'ANYCAST',
  'MULTICAST',
  'BLACKHOLE',
  'UNREACHABLE',
  'PROHIBIT',
];

export const addrtype: MatchExtension = {
  name: 'addrtype',
  supported: true,
  options: {
    '--src-type': o(1, true),
    '--dst-type': o(1, true),
    '--limit-iface-in': o(0),
    '--limit-iface-out': o(0),
  },
  compile(mod, cx) {
    const limitIn = mod.options.some((x) => x.name === '--limit-iface-in');
    const limitOut = mod.options.some((x) => x.name === '--limit-iface-out');
    if (limitIn && limitOut)
      fail(mod.column, 'addrtype takes only one of --limit-iface-in and --limit-iface-out');
    for (const opt of mod.options) {
      if (opt.name !== '--src-type' && opt.name !== '--dst-type') continue;
      const types = arg(opt)
        .split(',')
        .map((t) => t.toUpperCase());
      for (const t of types)
        if (!(ADDR_TYPES as readonly string[]).includes(t))
          fail(opt.column, `unknown address type '${t}'`, `Types are ${ADDR_TYPES.join(', ')}.`);
      const wanted = new Set(types);
      const field = opt.name === '--src-type' ? 'src' : 'dst';
      cx.add(
        negate((c) => {
          const iface = limitIn ? c.inIf : limitOut ? c.outIf : null;
          return wanted.has(addrType(c.host, c.pkt[field], iface));
        }, opt.negated),
      );
    }
  },
};
