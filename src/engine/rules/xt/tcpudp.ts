/**
 * `-m tcp`, `-m udp`, `-m sctp` (also loaded implicitly by `-p tcp --dport 80`): ports and TCP
 * flags (net/netfilter/xt_tcpudp.c, xt_sctp.c; extensions/libxt_tcp.c, libxt_udp.c).
 */
import type { TcpFlags } from '../../packet.ts';
import {
  arg,
  fail,
  negate,
  o,
  type MatchExtension,
  type Matcher,
  type ModuleSpec,
  type OptionSpec,
  type PortCheck,
  type Unsupported,
} from '../extension.ts';
import { IPPROTO, parsePortRange } from '../values.ts';

const ports = {
  '--sport': o(1, true),
  '--source-port': o(1, true, '--sport'),
  '--dport': o(1, true),
  '--destination-port': o(1, true, '--dport'),
};

const TCP_FLAG_NAMES: Readonly<Record<string, (keyof TcpFlags)[]>> = {
  SYN: ['syn'],
  ACK: ['ack'],
  FIN: ['fin'],
  RST: ['rst'],
  URG: ['urg'],
  PSH: ['psh'],
  ALL: ['syn', 'ack', 'fin', 'rst', 'urg', 'psh'],
  NONE: [],
};

function flagSet(text: string, column: number): Set<keyof TcpFlags> {
  const out = new Set<keyof TcpFlags>();
  for (const f of text.split(',')) {
    const names = TCP_FLAG_NAMES[f.toUpperCase()];
    if (!names)
      fail(column, `unknown TCP flag '${f}'`, 'Flags are SYN, ACK, FIN, RST, URG, PSH, ALL, NONE.');
    for (const n of names) out.add(n);
  }
  return out;
}

/** `--tcp-flags MASK COMP`: the flags in MASK must be set exactly as in COMP. */
function tcpFlags(mask: Set<keyof TcpFlags>, comp: Set<keyof TcpFlags>, neg: boolean): Matcher {
  const m: Matcher = (c) => {
    const f = c.pkt.flags;
    if (!f) return false;
    for (const k of mask) if (f[k] !== comp.has(k)) return false;
    return true;
  };
  return negate(m, neg);
}

function portCheck(opt: OptionSpec): PortCheck {
  const r = parsePortRange(arg(opt), opt.column);
  return { lo: r.lo, hi: r.hi, negated: opt.negated };
}

function portMatcher(p: PortCheck, which: 'sport' | 'dport'): Matcher {
  const m: Matcher = (c) => c.pkt[which] >= p.lo && c.pkt[which] <= p.hi;
  return negate(m, p.negated);
}

function portModule(name: 'tcp' | 'udp' | 'sctp', extra: Record<string, ReturnType<typeof o>>) {
  const ext: MatchExtension = {
    name,
    supported: true,
    options: { ...ports, ...extra },
    compile(mod: ModuleSpec, cx) {
      // The usual case, `--dport 80` and/or `--sport N` once each: into the rule's header.
      let sport: PortCheck | null = null;
      let dport: PortCheck | null = null;
      let onlyPorts = true;
      for (const opt of mod.options) {
        if (opt.name === '--sport' && sport === null) sport = portCheck(opt);
        else if (opt.name === '--dport' && dport === null) dport = portCheck(opt);
        else {
          onlyPorts = false;
          break;
        }
      }
      if (onlyPorts && cx.hoistPorts(IPPROTO[name] as number, sport, dport)) return;
      // Otherwise closures, every value checked in the order written (as iptables-restore does).
      const checks: (Matcher | Unsupported)[] = [(c) => c.pkt.proto === name];
      for (const opt of mod.options) {
        if (opt.name === '--sport' || opt.name === '--dport')
          checks.push(portMatcher(portCheck(opt), opt.name === '--sport' ? 'sport' : 'dport'));
        else if (opt.name === '--syn')
          checks.push(
            tcpFlags(
              flagSet('SYN,RST,ACK,FIN', opt.column),
              flagSet('SYN', opt.column),
              opt.negated,
            ),
          );
        else if (opt.name === '--tcp-flags')
          checks.push(
            tcpFlags(
              flagSet(opt.args[0] ?? '', opt.column),
              flagSet(opt.args[1] ?? '', opt.column),
              opt.negated,
            ),
          );
        else checks.push({ unsupported: `${name} ${opt.name}` });
      }
      for (const k of checks) cx.add(k);
    },
  };
  return ext;
}

export const tcp = portModule('tcp', {
  '--tcp-flags': o(2, true),
  '--syn': o(0, true),
  '--tcp-option': o(1, true),
});
export const udp = portModule('udp', {});
export const sctp = portModule('sctp', { '--chunk-types': o(2, true) });

/** UDP-Lite: its ports parse, but the lab has no UDP-Lite packets to match. */
export const udplite: MatchExtension = {
  name: 'udplite',
  supported: false,
  options: ports,
  compile() {},
};
