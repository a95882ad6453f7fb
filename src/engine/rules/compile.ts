/**
 * Compiles parsed rules into match functions and target operations, validating every value.
 * Semantics follow the kernel extensions (net/netfilter/xt_*.c, net/ipv4/netfilter/ip_tables.c).
 */
import { cidrContainsNum, ipToNum, parseCidr, parseIPv4, type Cidr } from '../ip.ts';
import { addrType, type AddrType } from '../host.ts';
import { ipsetMatch } from '../ipset.ts';
import type { MatchCtx } from '../match-context.ts';
import type { TcpFlags } from '../packet.ts';
import { lookupMatch } from './extensions.ts';
import type { CoreItem, Diagnostic, ModuleItem, OptionSpec, Rule } from './types.ts';

export type Matcher = (ctx: MatchCtx) => boolean;

export type TargetOp =
  | { readonly kind: 'none' }
  | { readonly kind: 'accept' }
  | { readonly kind: 'drop' }
  | { readonly kind: 'return' }
  | { readonly kind: 'jump'; readonly chain: string }
  | { readonly kind: 'goto'; readonly chain: string }
  | { readonly kind: 'dnat'; readonly ip: string | null; readonly ports: PortRange | null }
  | {
      readonly kind: 'snat';
      readonly ip: string;
      readonly ports: PortRange | null;
      readonly randomPort: boolean;
    }
  | { readonly kind: 'masquerade'; readonly ports: PortRange | null; readonly randomPort: boolean }
  | { readonly kind: 'redirect'; readonly ports: PortRange | null }
  | { readonly kind: 'mark'; readonly value: number; readonly mask: number }
  | {
      readonly kind: 'connmark';
      readonly mode: 'set';
      readonly value: number;
      readonly mask: number;
    }
  | {
      readonly kind: 'connmark';
      readonly mode: 'save' | 'restore';
      readonly nfmask: number;
      readonly ctmask: number;
    }
  | { readonly kind: 'reject'; readonly with: RejectWith }
  | { readonly kind: 'log'; readonly prefix: string; readonly via: 'LOG' | 'NFLOG' }
  | { readonly kind: 'trace' }
  | { readonly kind: 'notrack' }
  | { readonly kind: 'unsupported'; readonly what: string };

export type RejectWith =
  | 'icmp-net-unreachable'
  | 'icmp-host-unreachable'
  | 'icmp-port-unreachable'
  | 'icmp-proto-unreachable'
  | 'icmp-net-prohibited'
  | 'icmp-host-prohibited'
  | 'icmp-admin-prohibited'
  | 'tcp-reset';

export interface PortRange {
  readonly lo: number;
  readonly hi: number;
}

export interface CompiledRule {
  readonly rule: Rule;
  /** Core IP-header checks (ip_packet_match runs these before any module). */
  readonly core: readonly Matcher[];
  /** Module matches in rule order; `unsupported` marks a module the engine cannot evaluate. */
  readonly modules: readonly (Matcher | { readonly unsupported: string })[];
  readonly target: TargetOp;
  /** Probability of a `statistic --mode random` match, for display. */
  readonly probability: number | null;
}

class CompileError extends Error {
  constructor(
    readonly column: number,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

const fail = (column: number, message: string, hint?: string): never => {
  throw new CompileError(column, message, hint);
};

const PROTO_NUMBERS: Readonly<Record<string, string>> = {
  '6': 'tcp',
  '17': 'udp',
  '1': 'icmp',
  '132': 'sctp',
};
const KNOWN_PROTOS = new Set([
  'tcp',
  'udp',
  'icmp',
  'sctp',
  'all',
  'udplite',
  'gre',
  'esp',
  'ah',
  'ipip',
  'icmpv6',
  'ipv6-icmp',
]);

function parseAddrOption(value: string, column: number, family: 4 | 6): Cidr {
  if (value.includes(',')) {
    fail(
      column,
      `'${value}' lists several addresses`,
      'iptables-restore expands address lists into one rule per address; write one rule for each.',
    );
  }
  const c = parseCidr(value);
  if (!c)
    fail(
      column,
      `'${value}' is not an address or prefix`,
      'Write an address like 10.0.0.1 or a prefix like 10.244.0.0/16.',
    );
  if ((c as Cidr).family !== family)
    fail(column, `'${value}' is IPv${(c as Cidr).family} in an IPv${family} ruleset`);
  return c as Cidr;
}

export function parsePortRange(text: string, column: number): PortRange {
  const m = /^(\d{1,5})(?::(\d{0,5}))?$/.exec(text) ?? /^(\d{1,5})-(\d{1,5})$/.exec(text);
  if (!m) return fail(column, `'${text}' is not a port or port range`, 'Write 80 or 30000:32767.');
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : m[2] === '' ? 65535 : Number(m[2]);
  if (lo > 65535 || hi > 65535) fail(column, `port '${text}' is above 65535`);
  if (lo > hi) fail(column, `port range '${text}' is reversed`, `Write ${hi}:${lo}.`);
  return { lo, hi };
}

/** `0x4000/0x4000`, `16384`, `0x4000` (mask 0xffffffff). */
export function parseMarkMask(text: string, column: number): { value: number; mask: number } {
  const m = /^(0x[0-9a-fA-F]+|\d+)(?:\/(0x[0-9a-fA-F]+|\d+))?$/.exec(text);
  if (!m) return fail(column, `'${text}' is not a mark like 0x4000 or 0x4000/0x4000`);
  const value = Number(m[1]);
  const mask = m[2] === undefined ? 0xffffffff : Number(m[2]);
  if (value > 0xffffffff || mask > 0xffffffff) fail(column, `mark '${text}' does not fit 32 bits`);
  return { value: value >>> 0, mask: mask >>> 0 };
}

function ifaceMatcher(name: string): (actual: string | null) => boolean {
  if (name.endsWith('+')) {
    const prefix = name.slice(0, -1);
    return (a) => a !== null && a.startsWith(prefix);
  }
  return (a) => a === name;
}

function compileCore(item: CoreItem, family: 4 | 6): Matcher {
  const neg = item.negated;
  const wrap = (m: Matcher): Matcher => (neg ? (c) => !m(c) : m);
  switch (item.opt) {
    case '-p': {
      const p = PROTO_NUMBERS[item.value] ?? item.value;
      if (!KNOWN_PROTOS.has(p) && !/^\d+$/.test(p))
        fail(item.column, `unknown protocol '${item.value}'`, 'Use tcp, udp, icmp, sctp or all.');
      if (p === 'all' || p === '0') return neg ? () => false : () => true;
      return wrap((c) => c.pkt.proto === p);
    }
    case '-s': {
      const cidr = parseAddrOption(item.value, item.column, family);
      return wrap((c) => c.srcNum !== null && cidrContainsNum(cidr, c.srcNum));
    }
    case '-d': {
      const cidr = parseAddrOption(item.value, item.column, family);
      return wrap((c) => c.dstNum !== null && cidrContainsNum(cidr, c.dstNum));
    }
    case '-i': {
      const m = ifaceMatcher(item.value);
      return wrap((c) => m(c.inIf));
    }
    case '-o': {
      const m = ifaceMatcher(item.value);
      return wrap((c) => m(c.outIf));
    }
    case '-f':
      // Packets in the lab are never fragments.
      return () => neg;
  }
}

const single = (opt: OptionSpec): string => opt.args[0] ?? '';

function portMatcher(opt: OptionSpec, which: 'sport' | 'dport'): Matcher {
  const r = parsePortRange(single(opt), opt.column);
  const m: Matcher = (c) => c.pkt.proto !== 'icmp' && c.pkt[which] >= r.lo && c.pkt[which] <= r.hi;
  return opt.negated ? (c) => c.pkt.proto !== 'icmp' && !m(c) : m;
}

function multiportMatcher(opt: OptionSpec): Matcher {
  const ranges = single(opt)
    .split(',')
    .map((p) => parsePortRange(p, opt.column));
  if (ranges.length > 15) fail(opt.column, 'multiport takes at most 15 ports');
  const hit = (port: number) => ranges.some((r) => port >= r.lo && port <= r.hi);
  let m: Matcher;
  if (opt.name === '--sports') m = (c) => hit(c.pkt.sport);
  else if (opt.name === '--dports') m = (c) => hit(c.pkt.dport);
  else m = (c) => hit(c.pkt.sport) || hit(c.pkt.dport);
  return opt.negated ? (c) => !m(c) : m;
}

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
    for (const n of names as (keyof TcpFlags)[]) out.add(n);
  }
  return out;
}

function tcpFlagsMatcher(
  mask: Set<keyof TcpFlags>,
  comp: Set<keyof TcpFlags>,
  negated: boolean,
): Matcher {
  const m: Matcher = (c) => {
    const f = c.pkt.flags;
    if (!f) return false;
    for (const k of mask) if (f[k] !== comp.has(k)) return false;
    return true;
  };
  return negated ? (c) => !m(c) : m;
}

const CT_STATES = ['NEW', 'ESTABLISHED', 'RELATED', 'INVALID', 'UNTRACKED', 'SNAT', 'DNAT'];

function ctStateMatcher(opt: OptionSpec, allowVirtual: boolean): Matcher {
  const wanted = single(opt).split(',');
  for (const w of wanted) {
    if (!CT_STATES.includes(w) || (!allowVirtual && (w === 'SNAT' || w === 'DNAT'))) {
      fail(
        opt.column,
        `unknown conntrack state '${w}'`,
        `States are ${CT_STATES.slice(0, allowVirtual ? 7 : 5).join(', ')}.`,
      );
    }
  }
  const set = new Set(wanted);
  const m: Matcher = (c) => {
    if (set.has(c.ct.state)) return true;
    const conn = c.ct.conn;
    if (conn && set.has('SNAT') && conn.srcNat) return true;
    if (conn && set.has('DNAT') && conn.dstNat) return true;
    return false;
  };
  return opt.negated ? (c) => !m(c) : m;
}

const CT_STATUS = ['NONE', 'EXPECTED', 'SEEN_REPLY', 'ASSURED', 'CONFIRMED'];

function conntrackOption(opt: OptionSpec, family: 4 | 6): Matcher {
  const neg = (m: Matcher): Matcher => (opt.negated ? (c) => !m(c) : m);
  switch (opt.name) {
    case '--ctstate':
      return ctStateMatcher(opt, true);
    case '--ctstatus': {
      const wanted = single(opt).split(',');
      for (const w of wanted)
        if (!CT_STATUS.includes(w)) fail(opt.column, `unknown conntrack status '${w}'`);
      return neg((c) => {
        const conn = c.ct.conn;
        if (!conn) return false;
        return wanted.some(
          (w) =>
            (w === 'NONE' && !conn.seenReply && !conn.confirmed) ||
            (w === 'SEEN_REPLY' && conn.seenReply) ||
            (w === 'ASSURED' && conn.seenReply) ||
            (w === 'CONFIRMED' && conn.confirmed),
        );
      });
    }
    case '--ctproto': {
      const p = PROTO_NUMBERS[single(opt)] ?? single(opt).toLowerCase();
      return neg((c) => c.ct.conn !== null && c.ct.conn.orig.proto === p);
    }
    case '--ctorigsrc':
    case '--ctorigdst':
    case '--ctreplsrc':
    case '--ctrepldst': {
      const cidr = parseAddrOption(single(opt), opt.column, family);
      const dir = opt.name.startsWith('--ctorig') ? 'orig' : 'reply';
      const field = opt.name.endsWith('src') ? 'src' : 'dst';
      return neg((c) => {
        const conn = c.ct.conn;
        if (!conn) return false;
        const n = ipToNum(conn[dir][field]);
        return n !== null && cidrContainsNum(cidr, n);
      });
    }
    case '--ctorigsrcport':
    case '--ctorigdstport':
    case '--ctreplsrcport':
    case '--ctrepldstport': {
      const r = parsePortRange(single(opt), opt.column);
      const dir = opt.name.startsWith('--ctorig') ? 'orig' : 'reply';
      const field = opt.name.includes('src') ? 'sport' : 'dport';
      return neg((c) => {
        const conn = c.ct.conn;
        if (!conn) return false;
        const p = conn[dir][field];
        return p >= r.lo && p <= r.hi;
      });
    }
    case '--ctdir': {
      const d = single(opt).toUpperCase();
      if (d !== 'ORIGINAL' && d !== 'REPLY')
        fail(opt.column, `--ctdir is ORIGINAL or REPLY, not '${single(opt)}'`);
      return (c) => c.ct.conn !== null && (c.ct.dir === 'original') === (d === 'ORIGINAL');
    }
    default:
      return fail(
        opt.column,
        `${opt.name} is not supported by the lab`,
        'Remove it, or use --ctstate.',
      );
  }
}

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

function addrtypeModule(mod: ModuleItem): Matcher[] {
  const limitIn = mod.options.some((o) => o.name === '--limit-iface-in');
  const limitOut = mod.options.some((o) => o.name === '--limit-iface-out');
  if (limitIn && limitOut)
    fail(mod.column, 'addrtype takes only one of --limit-iface-in and --limit-iface-out');
  const out: Matcher[] = [];
  for (const opt of mod.options) {
    if (opt.name !== '--src-type' && opt.name !== '--dst-type') continue;
    const types = single(opt)
      .split(',')
      .map((t) => t.toUpperCase());
    for (const t of types)
      if (!(ADDR_TYPES as readonly string[]).includes(t))
        fail(opt.column, `unknown address type '${t}'`, `Types are ${ADDR_TYPES.join(', ')}.`);
    const wanted = new Set(types);
    const field = opt.name === '--src-type' ? 'src' : 'dst';
    const m: Matcher = (c) => {
      const iface = limitIn ? c.inIf : limitOut ? c.outIf : null;
      return wanted.has(addrType(c.host, c.pkt[field], iface));
    };
    out.push(opt.negated ? (c) => !m(c) : m);
  }
  return out;
}

function recentModule(mod: ModuleItem): Matcher {
  const get = (n: string) => mod.options.find((o) => o.name === n);
  const name = get('--name')?.args[0] ?? 'DEFAULT';
  const modes = ['--set', '--rcheck', '--update', '--remove'].filter((m) => get(m));
  if (modes.length !== 1)
    fail(mod.column, 'recent needs exactly one of --set, --rcheck, --update, --remove');
  const mode = modes[0] as string;
  const negated = get(mode)?.negated ?? false;
  const seconds = get('--seconds') ? Number(get('--seconds')?.args[0]) : 0;
  const hitcount = get('--hitcount') ? Number(get('--hitcount')?.args[0]) : 0;
  const reap = get('--reap') !== undefined;
  const useDst = get('--rdest') !== undefined;
  if (Number.isNaN(seconds) || Number.isNaN(hitcount))
    fail(mod.column, 'recent --seconds and --hitcount take numbers');
  if (reap && !seconds) fail(mod.column, 'recent --reap needs --seconds');
  return (c) => {
    const addr = useDst ? c.pkt.dst : c.pkt.src;
    let list = c.state.recent.get(name);
    if (!list) {
      list = new Map();
      c.state.recent.set(name, list);
    }
    if (reap) {
      for (const [a, times] of list) {
        const kept = times.filter((t) => c.now - t <= seconds);
        if (kept.length) list.set(a, kept);
        else list.delete(a);
      }
    }
    let hit: boolean;
    if (mode === '--set') {
      list.set(addr, [...(list.get(addr) ?? []), c.now]);
      hit = true;
    } else if (mode === '--remove') {
      hit = list.delete(addr);
    } else {
      const times = (list.get(addr) ?? []).filter((t) => !seconds || c.now - t <= seconds);
      hit = times.length > 0 && (!hitcount || times.length >= hitcount);
      if (hit && mode === '--update') list.set(addr, [...(list.get(addr) ?? []), c.now]);
    }
    return negated ? !hit : hit;
  };
}

function statisticModule(mod: ModuleItem, rule: Rule): { m: Matcher; p: number | null } {
  const get = (n: string) => mod.options.find((o) => o.name === n);
  const mode = get('--mode')?.args[0];
  if (mode === 'random') {
    const o = get('--probability');
    const raw = o?.args[0] ?? '';
    // iptables reads it with strtod and refuses an empty or partial number; Number('') is 0.
    const p = raw.trim() === '' ? NaN : Number(raw);
    if (!o || Number.isNaN(p) || p < 0 || p > 1)
      fail(
        o?.column ?? mod.column,
        `statistic --mode random needs --probability between 0 and 1${o ? `, not '${raw}'` : ''}`,
      );
    const neg = o?.negated ?? false;
    // The kernel draws get_random_u32() < probability * 2^31 (xt_statistic.c).
    const m: Matcher = (c) => {
      const hit = c.choose(p, rule);
      return neg ? !hit : hit;
    };
    return { m, p: neg ? 1 - p : p };
  }
  if (mode === 'nth') {
    const every = Number(get('--every')?.args[0]);
    const packet = Number(get('--packet')?.args[0] ?? 0);
    if (!Number.isInteger(every) || every < 1 || !Number.isInteger(packet) || packet >= every) {
      fail(mod.column, 'statistic --mode nth needs --every N (>= 1) and --packet P (< N)');
    }
    const neg = get('--every')?.negated ?? false;
    const key = `${rule.table}/${rule.chain}/${rule.line}/${rule.index}`;
    const m: Matcher = (c) => {
      // xt_statistic starts its counter at every-1-packet and matches when it wraps to 0, so the
      // k-th packet reaching the rule (0-based) matches when k % every == packet.
      const k = c.state.nth.get(key) ?? 0;
      c.state.nth.set(key, k + 1);
      return (k % every === packet) !== neg;
    };
    return { m, p: null };
  }
  return fail(mod.column, `statistic --mode must be random or nth, not '${mode ?? ''}'`);
}

function iprangeMatcher(opt: OptionSpec): Matcher {
  const [a, b] = single(opt).split('-');
  const lo = a === undefined ? null : parseIPv4(a);
  const hi = b === undefined ? lo : parseIPv4(b);
  if (lo === null || hi === null)
    return fail(opt.column, `'${single(opt)}' is not a range like 10.0.0.1-10.0.0.9`);
  const field = opt.name === '--src-range' ? 'srcNum' : 'dstNum';
  const m: Matcher = (c) => {
    const n = c[field];
    return typeof n === 'number' && n >= lo && n <= hi;
  };
  return opt.negated ? (c) => !m(c) : m;
}

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

function icmpMatcher(opt: OptionSpec): Matcher {
  const t = single(opt);
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
  return opt.negated ? (c) => c.pkt.proto === 'icmp' && !m(c) : m;
}

function compileModule(
  mod: ModuleItem,
  rule: Rule,
  family: 4 | 6,
  probe: { p: number | null },
): (Matcher | { unsupported: string })[] {
  const info = lookupMatch(mod.name);
  if (!info) return [{ unsupported: `match module '${mod.name}'` }];
  if (!info.supported) return [{ unsupported: `match module '${mod.name}'` }];
  const out: (Matcher | { unsupported: string })[] = [];
  switch (mod.name) {
    case 'tcp':
    case 'udp':
    case 'sctp': {
      const proto = mod.name;
      out.push((c) => c.pkt.proto === proto);
      for (const opt of mod.options) {
        if (opt.name === '--sport') out.push(portMatcher(opt, 'sport'));
        else if (opt.name === '--dport') out.push(portMatcher(opt, 'dport'));
        else if (opt.name === '--syn')
          out.push(
            tcpFlagsMatcher(
              flagSet('SYN,RST,ACK,FIN', opt.column),
              flagSet('SYN', opt.column),
              opt.negated,
            ),
          );
        else if (opt.name === '--tcp-flags')
          out.push(
            tcpFlagsMatcher(
              flagSet(opt.args[0] ?? '', opt.column),
              flagSet(opt.args[1] ?? '', opt.column),
              opt.negated,
            ),
          );
        else out.push({ unsupported: `${mod.name} ${opt.name}` });
      }
      return out;
    }
    case 'icmp':
      for (const opt of mod.options) out.push(icmpMatcher(opt));
      return out;
    case 'multiport':
      if (mod.options.length !== 1)
        fail(mod.column, 'multiport needs exactly one of --sports, --dports, --ports');
      return [multiportMatcher(mod.options[0] as OptionSpec)];
    case 'comment':
    case 'nfacct':
    case 'limit':
      // comment never affects matching; nfacct only counts; limit passes the first packets of its burst.
      return [];
    case 'addrtype':
      return addrtypeModule(mod);
    case 'mark':
    case 'connmark':
      for (const opt of mod.options) {
        const { value, mask } = parseMarkMask(single(opt), opt.column);
        const field = mod.name;
        const m: Matcher = (c) => {
          const v = field === 'mark' ? c.pkt.mark : (c.ct.conn?.mark ?? 0);
          return (v & mask) >>> 0 === value;
        };
        out.push(opt.negated ? (c) => !m(c) : m);
      }
      return out;
    case 'conntrack':
      return mod.options.map((o) => conntrackOption(o, family));
    case 'state':
      return mod.options.map((o) => ctStateMatcher(o, false));
    case 'statistic': {
      const { m, p } = statisticModule(mod, rule);
      probe.p = p;
      return [m];
    }
    case 'recent':
      return [recentModule(mod)];
    case 'set': {
      for (const opt of mod.options) {
        if (opt.name !== '--match-set') {
          out.push({ unsupported: `set ${opt.name}` });
          continue;
        }
        const [name, flagText] = opt.args as [string, string];
        const flags = flagText.split(',');
        if (flags.some((f) => f !== 'src' && f !== 'dst'))
          fail(opt.column, `set flags are src or dst, not '${flagText}'`);
        const m: Matcher = (c) => {
          const set = c.sets.get(name);
          if (!set) return false;
          return ipsetMatch(set, flags as ('src' | 'dst')[], {
            ip: (w) => c.pkt[w],
            port: (w) => (w === 'src' ? c.pkt.sport : c.pkt.dport),
            proto: c.pkt.proto,
          });
        };
        out.push(opt.negated ? (c) => !m(c) : m);
      }
      return out;
    }
    case 'iprange':
      return mod.options.map(iprangeMatcher);
    case 'pkttype':
      return mod.options.map((opt) => {
        const t = single(opt).toLowerCase();
        if (!['unicast', 'broadcast', 'multicast'].includes(t))
          fail(opt.column, `--pkt-type is unicast, broadcast or multicast`);
        const m: Matcher = (c) => {
          const at = addrType(c.host, c.pkt.dst, null);
          const kind =
            at === 'BROADCAST' ? 'broadcast' : at === 'MULTICAST' ? 'multicast' : 'unicast';
          return kind === t;
        };
        return opt.negated ? (c: MatchCtx) => !m(c) : m;
      });
    default:
      return [{ unsupported: `match module '${mod.name}'` }];
  }
}

export function compileTarget(
  rule: Rule,
  family: 4 | 6,
  userChains: ReadonlySet<string>,
): TargetOp {
  const t = rule.target;
  if (!t) return { kind: 'none' };
  const get = (n: string) => t.options.find((o) => o.name === n);
  const noOptions = () => {
    const first = t.options[0];
    if (first) fail(first.column, `${t.name} takes no options (${first.name})`);
  };
  if (t.via === '-g' || userChains.has(t.name)) {
    noOptions();
    if (!userChains.has(t.name))
      fail(t.column, `-g needs a user-defined chain; '${t.name}' is not one`);
    return t.via === '-g' ? { kind: 'goto', chain: t.name } : { kind: 'jump', chain: t.name };
  }
  switch (t.name) {
    case 'ACCEPT':
      noOptions();
      return { kind: 'accept' };
    case 'DROP':
      noOptions();
      return { kind: 'drop' };
    case 'RETURN':
      noOptions();
      return { kind: 'return' };
    case 'DNAT': {
      const o = get('--to-destination');
      if (!o)
        return fail(
          t.column,
          'DNAT needs --to-destination',
          'For example: -j DNAT --to-destination 10.244.1.5:80',
        );
      const to = parseNatTo(single(o), o.column, family);
      if (to.ports) needPortProtocol(rule, o.column, 'DNAT');
      return { kind: 'dnat', ...to };
    }
    case 'SNAT': {
      const o = get('--to-source');
      if (!o)
        return fail(
          t.column,
          'SNAT needs --to-source',
          'For example: -j SNAT --to-source 192.168.50.38',
        );
      const to = parseNatTo(single(o), o.column, family);
      if (to.ip === null) fail(o.column, 'SNAT --to-source needs an address');
      if (to.ports) needPortProtocol(rule, o.column, 'SNAT');
      return {
        kind: 'snat',
        ip: to.ip as string,
        ports: to.ports,
        randomPort: get('--random-fully') !== undefined,
      };
    }
    case 'MASQUERADE':
    case 'REDIRECT': {
      const o = get('--to-ports');
      const ports = o ? parsePortRange(single(o).replace('-', ':'), o.column) : null;
      if (o) needPortProtocol(rule, o.column, t.name);
      if (t.name === 'REDIRECT') return { kind: 'redirect', ports };
      // --random-fully: the kernel draws the source port at random (NF_NAT_RANGE_PROTO_RANDOM_FULLY).
      return { kind: 'masquerade', ports, randomPort: get('--random-fully') !== undefined };
    }
    case 'MARK':
    case 'CONNMARK':
      return compileMarkTarget(t.name, t.options, t.column);
    case 'REJECT': {
      const o = get('--reject-with');
      let w = o ? single(o) : 'icmp-port-unreachable';
      if (w === 'tcp-rst') w = 'tcp-reset';
      const valid: RejectWith[] = [
        'icmp-net-unreachable',
        'icmp-host-unreachable',
        'icmp-port-unreachable',
        'icmp-proto-unreachable',
        'icmp-net-prohibited',
        'icmp-host-prohibited',
        'icmp-admin-prohibited',
        'tcp-reset',
      ];
      if (!valid.includes(w as RejectWith))
        fail(
          o?.column ?? t.column,
          `unknown --reject-with '${w}'`,
          `Use one of ${valid.join(', ')}.`,
        );
      if (
        w === 'tcp-reset' &&
        !rule.items.some(
          (i) => i.kind === 'core' && i.opt === '-p' && i.value === 'tcp' && !i.negated,
        )
      ) {
        fail(o?.column ?? t.column, 'REJECT --reject-with tcp-reset needs -p tcp in the same rule');
      }
      return { kind: 'reject', with: w as RejectWith };
    }
    case 'LOG':
      return { kind: 'log', prefix: get('--log-prefix')?.args[0] ?? '', via: 'LOG' };
    case 'NFLOG':
      return { kind: 'log', prefix: get('--nflog-prefix')?.args[0] ?? '', via: 'NFLOG' };
    case 'TRACE':
      return { kind: 'trace' };
    case 'NOTRACK':
      return { kind: 'notrack' };
    case 'CT':
      if (get('--notrack')) return { kind: 'notrack' };
      return { kind: 'unsupported', what: `CT ${t.options.map((o) => o.name).join(' ')}` };
    default:
      return { kind: 'unsupported', what: `target ${t.name}` };
  }
}

/**
 * NAT to a port needs a protocol with ports: iptables-restore refuses the rule otherwise
 * ("Need TCP, UDP, SCTP or DCCP with port specification", libxt_DNAT.c; seen with 1.8.9).
 */
function needPortProtocol(rule: Rule, column: number, target: string): void {
  const ok = rule.items.some(
    (i) =>
      i.kind === 'core' &&
      i.opt === '-p' &&
      // As iptables 1.8.9 checks it: the protocol number only (`! -p tcp` passes), and ICMP
      // (its echo id is NAT's "port") is accepted though the message does not say so.
      ['tcp', 'udp', 'sctp', 'dccp', 'icmp', '6', '17', '132', '33', '1'].includes(
        i.value.toLowerCase(),
      ),
  );
  if (!ok) {
    fail(
      column,
      `${target} to a port needs -p tcp, udp, sctp or dccp in the same rule`,
      'iptables-restore refuses this rule: "Need TCP, UDP, SCTP or DCCP with port specification".',
    );
  }
}

function parseNatTo(
  text: string,
  column: number,
  family: 4 | 6,
): { ip: string | null; ports: PortRange | null } {
  // 10.0.0.1, 10.0.0.1:80, 10.0.0.1:80-90, :80, [fd00::1]:80, 10.0.0.1-10.0.0.5 (first address used)
  let host = text;
  let portText: string | null = null;
  const v6 = /^\[([^\]]+)\](?::(.+))?$/.exec(text);
  if (v6) {
    host = v6[1] as string;
    portText = v6[2] ?? null;
  } else if (family === 4 && text.includes(':')) {
    const idx = text.lastIndexOf(':');
    host = text.slice(0, idx);
    portText = text.slice(idx + 1);
  }
  let ip: string | null = null;
  if (host !== '') {
    const first = host.split('-')[0] as string;
    const n = ipToNum(first);
    if (n === null)
      return fail(column, `'${text}' is not an address[:port]`, 'For example 10.244.1.5:80.');
    ip = first;
  }
  const ports = portText === null ? null : parsePortRange(portText.replace('-', ':'), column);
  return { ip, ports };
}

function compileMarkTarget(
  name: 'MARK' | 'CONNMARK',
  options: readonly OptionSpec[],
  column: number,
): TargetOp {
  const get = (n: string) => options.find((o) => o.name === n);
  if (name === 'CONNMARK' && (get('--save-mark') || get('--restore-mark'))) {
    const mask = get('--mask')
      ? parseMarkMask(single(get('--mask') as OptionSpec), column).value
      : 0xffffffff;
    const nf = get('--nfmask')
      ? parseMarkMask(single(get('--nfmask') as OptionSpec), column).value
      : mask;
    const ct = get('--ctmask')
      ? parseMarkMask(single(get('--ctmask') as OptionSpec), column).value
      : mask;
    return {
      kind: 'connmark',
      mode: get('--save-mark') ? 'save' : 'restore',
      nfmask: nf,
      ctmask: ct,
    };
  }
  let op: { value: number; mask: number } | null = null;
  for (const o of options) {
    const v = single(o);
    switch (o.name) {
      case '--set-xmark':
        op = parseMarkMask(v, o.column);
        break;
      case '--set-mark': {
        const { value, mask } = parseMarkMask(v, o.column);
        op = { value, mask: mask >>> 0 };
        break;
      }
      case '--or-mark': {
        const { value } = parseMarkMask(v, o.column);
        op = { value, mask: value };
        break;
      }
      case '--and-mark': {
        const { value } = parseMarkMask(v, o.column);
        op = { value: 0, mask: ~value >>> 0 };
        break;
      }
      case '--xor-mark': {
        const { value } = parseMarkMask(v, o.column);
        op = { value, mask: 0 };
        break;
      }
      default:
        break;
    }
  }
  if (!op)
    return fail(
      column,
      `${name} needs --set-xmark, --set-mark, --or-mark, --and-mark or --xor-mark`,
    );
  return name === 'MARK'
    ? { kind: 'mark', value: op.value, mask: op.mask }
    : { kind: 'connmark', mode: 'set', value: op.value, mask: op.mask };
}

/** Applies an `--set-xmark value/mask` style operation: mark = (mark & ~mask) ^ value. */
export function applyXmark(mark: number, value: number, mask: number): number {
  return ((mark & ~mask) ^ value) >>> 0;
}

export function compileRule(
  rule: Rule,
  family: 4 | 6,
  userChains: ReadonlySet<string>,
): { compiled: CompiledRule } | { diagnostic: Diagnostic } {
  try {
    const core: Matcher[] = [];
    const modules: (Matcher | { unsupported: string })[] = [];
    const probe = { p: null as number | null };
    for (const item of rule.items) {
      if (item.kind === 'core') core.push(compileCore(item, family));
      else modules.push(...compileModule(item, rule, family, probe));
    }
    const target = compileTarget(rule, family, userChains);
    return { compiled: { rule, core, modules, target, probability: probe.p } };
  } catch (e) {
    if (e instanceof CompileError) {
      const d: Diagnostic =
        e.hint === undefined
          ? { severity: 'error', line: rule.line, column: e.column, message: e.message }
          : {
              severity: 'error',
              line: rule.line,
              column: e.column,
              message: e.message,
              hint: e.hint,
            };
      return { diagnostic: d };
    }
    throw e;
  }
}
