/**
 * `-m conntrack` and the older `-m state`: the connection's state, status, tuples and direction
 * (net/netfilter/xt_conntrack.c, xt_state.c). kube-proxy drops `--ctstate INVALID` and accepts
 * `RELATED,ESTABLISHED` in KUBE-FORWARD.
 */
import { cidrContainsNum, ipToNum } from '../../ip.ts';
import {
  arg,
  fail,
  negate,
  o,
  type MatchExtension,
  type Matcher,
  type OptionSpec,
} from '../extension.ts';
import { parseAddrOption, parsePortRange, PROTO_NUMBERS } from '../values.ts';

const CT_STATES = ['NEW', 'ESTABLISHED', 'RELATED', 'INVALID', 'UNTRACKED', 'SNAT', 'DNAT'];
const CT_STATUS = ['NONE', 'EXPECTED', 'SEEN_REPLY', 'ASSURED', 'CONFIRMED'];

/** `--ctstate` (with the virtual SNAT/DNAT states) or `--state` (without them). */
function ctState(opt: OptionSpec, allowVirtual: boolean): Matcher {
  const wanted = arg(opt).split(',');
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
  return negate((c) => {
    if (set.has(c.ct.state)) return true;
    const conn = c.ct.conn;
    if (conn && set.has('SNAT') && conn.srcNat) return true;
    if (conn && set.has('DNAT') && conn.dstNat) return true;
    return false;
  }, opt.negated);
}

function ctStatus(opt: OptionSpec): Matcher {
  const wanted = arg(opt).split(',');
  for (const w of wanted)
    if (!CT_STATUS.includes(w)) fail(opt.column, `unknown conntrack status '${w}'`);
  return negate((c) => {
    const conn = c.ct.conn;
    if (!conn) return false;
    return wanted.some(
      (w) =>
        (w === 'NONE' && !conn.seenReply && !conn.confirmed) ||
        (w === 'SEEN_REPLY' && conn.seenReply) ||
        (w === 'ASSURED' && conn.seenReply) ||
        (w === 'CONFIRMED' && conn.confirmed),
    );
  }, opt.negated);
}

function ctTupleAddr(opt: OptionSpec, family: 4 | 6): Matcher {
  const cidr = parseAddrOption(arg(opt), opt.column, family);
  const dir = opt.name.startsWith('--ctorig') ? 'orig' : 'reply';
  const field = opt.name.endsWith('src') ? 'src' : 'dst';
  return negate((c) => {
    const conn = c.ct.conn;
    if (!conn) return false;
    const n = ipToNum(conn[dir][field]);
    return n !== null && cidrContainsNum(cidr, n);
  }, opt.negated);
}

function ctTuplePort(opt: OptionSpec): Matcher {
  const r = parsePortRange(arg(opt), opt.column);
  const dir = opt.name.startsWith('--ctorig') ? 'orig' : 'reply';
  const field = opt.name.includes('src') ? 'sport' : 'dport';
  return negate((c) => {
    const conn = c.ct.conn;
    if (!conn) return false;
    const p = conn[dir][field];
    return p >= r.lo && p <= r.hi;
  }, opt.negated);
}

function conntrackOption(opt: OptionSpec, family: 4 | 6): Matcher {
  switch (opt.name) {
    case '--ctstate':
      return ctState(opt, true);
    case '--ctstatus':
      return ctStatus(opt);
    case '--ctproto': {
      const p = PROTO_NUMBERS[arg(opt)] ?? arg(opt).toLowerCase();
      return negate((c) => c.ct.conn !== null && c.ct.conn.orig.proto === p, opt.negated);
    }
    case '--ctorigsrc':
    case '--ctorigdst':
    case '--ctreplsrc':
    case '--ctrepldst':
      return ctTupleAddr(opt, family);
    case '--ctorigsrcport':
    case '--ctorigdstport':
    case '--ctreplsrcport':
    case '--ctrepldstport':
      return ctTuplePort(opt);
    case '--ctdir': {
      const d = arg(opt).toUpperCase();
      if (d !== 'ORIGINAL' && d !== 'REPLY')
        fail(opt.column, `--ctdir is ORIGINAL or REPLY, not '${arg(opt)}'`);
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

export const conntrack: MatchExtension = {
  name: 'conntrack',
  supported: true,
  options: {
    '--ctstate': o(1, true),
    '--ctproto': o(1, true),
    '--ctorigsrc': o(1, true),
    '--ctorigdst': o(1, true),
    '--ctreplsrc': o(1, true),
    '--ctrepldst': o(1, true),
    '--ctorigsrcport': o(1, true),
    '--ctorigdstport': o(1, true),
    '--ctreplsrcport': o(1, true),
    '--ctrepldstport': o(1, true),
    '--ctstatus': o(1, true),
    '--ctexpire': o(1, true),
    '--ctdir': o(1),
  },
  compile(mod, cx) {
    for (const opt of mod.options) cx.add(conntrackOption(opt, cx.family));
  },
};

export const state: MatchExtension = {
  name: 'state',
  supported: true,
  options: { '--state': o(1, true) },
  compile(mod, cx) {
    for (const opt of mod.options) cx.add(ctState(opt, false));
  },
};
