/**
 * NAT statements (net/netfilter/nft_nat.c, nft_masq.c, nft_redir.c): `dnat [ip|ip6] to
 * ADDR[:PORT[-PORT]]`, `snat to ...`, `masquerade [to :PORT] [random|fully-random|persistent]`,
 * `redirect [to [:]PORT]`. Each sets up the connection's binding (nf_nat_setup_info) and ends
 * the chain with accept, as their eval functions return its verdict.
 */
import { canonicalIp } from '../../ip.ts';
import type { NatOp, PortRange } from '../../rules/target-op.ts';
import { fail, unsupported, type Cursor } from '../cursor.ts';
import type { Stmt } from '../types.ts';
import type { StmtFamily } from './family.ts';

const FLAGS = new Set(['random', 'fully-random', 'persistent']);

function ports(text: string, c: Cursor): PortRange {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  const lo = m ? Number(m[1]) : NaN;
  const hi = m && m[2] !== undefined ? Number(m[2]) : lo;
  if (!m || lo > 65535 || hi > 65535 || lo > hi)
    fail(c.here(), `'${text}' is not a port or port range like 8080 or 30000-32767`);
  return { lo, hi };
}

/** `10.0.0.1`, `10.0.0.1:80`, `[fd00::1]:80`, `fd00::1`, `:80` */
function address(text: string, c: Cursor): { ip: string | null; ports: PortRange | null } {
  let host = text;
  let port: string | null = null;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    host = text.slice(1, close);
    if (text[close + 1] === ':') port = text.slice(close + 2);
  } else if (text.indexOf(':') === text.lastIndexOf(':') && text.includes(':')) {
    const k = text.indexOf(':');
    host = text.slice(0, k);
    port = text.slice(k + 1);
  }
  if (host === '') return { ip: null, ports: port === null ? null : ports(port, c) };
  if (host.includes('-') || host.includes('/'))
    unsupported(c.here(), `NAT to an address range (${text})`);
  const ip = canonicalIp(host);
  if (ip === null) fail(c.here(), `'${host}' is not an address to translate to`);
  return { ip, ports: port === null ? null : ports(port, c) };
}

function flags(c: Cursor): { random: boolean; text: string } {
  let random = false;
  const seen: string[] = [];
  while (c.word() !== undefined && FLAGS.has(c.word() as string)) {
    const f = c.word() as string;
    seen.push(f);
    if (f !== 'persistent') random = true;
    c.i++;
    if (c.isPunct(',')) c.i++;
  }
  return { random, text: seen.length ? ` ${seen.join(',')}` : '' };
}

const nat: StmtFamily = {
  words: ['dnat', 'snat', 'masquerade', 'redirect'],
  parse(c, r): Stmt {
    const kind = c.word() as 'dnat' | 'snat' | 'masquerade' | 'redirect';
    const start = c.peek();
    c.i++;
    r.usesConntrack();
    if (c.word() === 'ip' || c.word() === 'ip6') c.i++;
    let target: { ip: string | null; ports: PortRange | null } = { ip: null, ports: null };
    if (c.word() === 'to') {
      c.i++;
      const t = c.word();
      if (t === undefined) fail(c.here(), `'${kind} to' needs an address here`);
      if (c.peek(1)?.kind === 'word' && ['map', 'vmap'].includes(c.word(1) ?? ''))
        unsupported(start, `${kind} to a mapped address`);
      if (['numgen', 'ip', 'ip6', 'meta', 'jhash', 'symhash'].includes(t))
        unsupported(start, `${kind} to a computed address`);
      c.i++;
      target =
        kind === 'redirect' || kind === 'masquerade'
          ? { ip: null, ports: ports(t.replace(/^:/, ''), c) }
          : address(t, c);
      if (kind !== 'redirect' && kind !== 'masquerade' && target.ip === null && kind === 'snat')
        fail(start, "'snat to' needs an address");
    } else if (kind === 'dnat' || kind === 'snat') {
      fail(c.here() ?? start, `'${kind}' needs 'to ADDRESS[:PORT]'`);
    }
    const f = flags(c);
    const text = `${kind}${target.ip || target.ports ? ` to ${targetText(target)}` : ''}${f.text}`;
    let op: NatOp;
    switch (kind) {
      case 'dnat':
        op = { kind: 'dnat', ip: target.ip, ports: target.ports };
        break;
      case 'snat':
        op = { kind: 'snat', ip: target.ip as string, ports: target.ports, randomPort: f.random };
        break;
      case 'masquerade':
        op = { kind: 'masquerade', ports: target.ports, randomPort: f.random };
        break;
      case 'redirect':
        op = { kind: 'redirect', ports: target.ports };
        break;
    }
    return { kind: 'nat', text, op, target: kind.toUpperCase() };
  },
};

function targetText(t: { ip: string | null; ports: PortRange | null }): string {
  const p = t.ports ? `${t.ports.lo}${t.ports.hi !== t.ports.lo ? `-${t.ports.hi}` : ''}` : null;
  if (!t.ip) return `:${p}`;
  const host = t.ip.includes(':') ? (p ? `[${t.ip}]` : t.ip) : t.ip;
  return p ? `${host}:${p}` : host;
}

export const NAT: readonly StmtFamily[] = [nat];
