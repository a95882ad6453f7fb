/** `-m icmp --icmp-type` (icmp_match in net/ipv4/netfilter/ip_tables.c; names from libipt_icmp.c). */
import { arg, fail, o, type MatchExtension, type Matcher, type OptionSpec } from '../extension.ts';

const ICMP_TYPES: Readonly<Record<string, [number, number | null]>> = {
  any: [-1, null],
  'echo-reply': [0, null],
  pong: [0, null],
  'destination-unreachable': [3, null],
  'network-unreachable': [3, 0],
  'host-unreachable': [3, 1],
  'protocol-unreachable': [3, 2],
  'port-unreachable': [3, 3],
  'echo-request': [8, null],
  ping: [8, null],
  'time-exceeded': [11, null],
};

function icmpType(opt: OptionSpec): Matcher {
  const t = arg(opt);
  let spec = ICMP_TYPES[t];
  if (!spec) {
    const m = /^(\d+)(?:\/(\d+))?$/.exec(t);
    if (!m)
      return fail(
        opt.column,
        `unknown ICMP type '${t}'`,
        'Use a name like echo-request or a number like 8 or 3/3.',
      );
    spec = [Number(m[1]), m[2] === undefined ? null : Number(m[2])];
  }
  const [type, code] = spec;
  const m: Matcher = (c) =>
    c.pkt.proto === 'icmp' &&
    (type === -1 || (c.pkt.icmpType === type && (code === null || c.pkt.icmpCode === code)));
  // `! --icmp-type` still needs an ICMP packet.
  return opt.negated ? (c) => c.pkt.proto === 'icmp' && !m(c) : m;
}

export const icmp: MatchExtension = {
  name: 'icmp',
  supported: true,
  options: { '--icmp-type': o(1, true) },
  compile(mod, cx) {
    for (const opt of mod.options) cx.add(icmpType(opt));
  },
};
