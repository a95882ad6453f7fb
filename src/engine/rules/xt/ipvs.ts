/**
 * `-m ipvs`: properties of the IPVS connection a packet belongs to (net/netfilter/xt_ipvs.c, read
 * at torvalds/linux 2cc2c3cb54de). kube-proxy's KUBE-IPVS-OUT-FILTER uses it to drop a node's own
 * connections to a LoadBalancer IP whose source ranges leave the node out
 * (`-s LBIP -m ipvs --vaddr LBIP --vproto tcp --vport 80 -j DROP`, kubernetes/kubernetes#119656).
 *
 * ipvs_mt: `--ipvs` alone tests skb->ipvs_property (set on every packet IPVS sent or translated).
 * Any other option needs that property too, then the protocol, then a connection found with
 * conn_out_get on the header read *inverted* (ip_vs_fill_iph_skb(..., true, ...)): the entry whose
 * client is the packet's source and whose real server is its destination, i.e. the request IPVS
 * re-sent towards the real server; then that connection's vport, vaddr, direction and method.
 * Modelled from the kernel source, not checked on a kernel (no IPVS module here).
 */
import { cidrContainsNum, ipToNum } from '../../ip.ts';
import type { MatchCtx } from '../../match-context.ts';
import { arg, fail, o, type MatchExtension } from '../extension.ts';
import { parseAddrOption, PROTO_NUMBERS } from '../values.ts';

type Check = (c: MatchCtx, conn: NonNullable<ReturnType<typeof connOf>>) => boolean;

/** conn_out_get with the inverted header: client = packet source, real server = destination. */
function connOf(c: MatchCtx) {
  const p = c.pkt;
  return (c.ipvs?.conns ?? []).find(
    (x) =>
      x.proto === p.proto &&
      x.caddr === p.src &&
      x.cport === p.sport &&
      x.daddr === p.dst &&
      x.dport === p.dport,
  );
}

export const ipvs: MatchExtension = {
  name: 'ipvs',
  supported: true,
  options: {
    '--ipvs': o(0, true),
    '--vproto': o(1, true),
    '--vaddr': o(1, true),
    '--vport': o(1, true),
    '--vportctl': o(1, true),
    '--vdir': o(1, true),
    '--vmethod': o(1, true),
  },
  compile(mod, cx) {
    let property: { negated: boolean } | null = null;
    let proto: { value: string; negated: boolean } | null = null;
    const checks: Check[] = [];
    for (const opt of mod.options) {
      const neg = opt.negated;
      switch (opt.name) {
        case '--ipvs':
          property = { negated: neg };
          break;
        case '--vproto': {
          const v = arg(opt).toLowerCase();
          proto = { value: PROTO_NUMBERS[v] ?? v, negated: neg };
          break;
        }
        case '--vaddr': {
          const cidr = parseAddrOption(arg(opt), opt.column, cx.family);
          checks.push((_c, conn) => {
            const n = ipToNum(conn.vaddr);
            return (n !== null && cidrContainsNum(cidr, n)) !== neg;
          });
          break;
        }
        case '--vport': {
          const port = Number(arg(opt));
          if (!Number.isInteger(port) || port < 0 || port > 65535)
            fail(opt.column, `'${arg(opt)}' is not a port`);
          checks.push((_c, conn) => (conn.vport === port) !== neg);
          break;
        }
        case '--vdir': {
          const dir = arg(opt).toUpperCase();
          if (dir !== 'ORIGINAL' && dir !== 'REPLY')
            fail(opt.column, `--vdir is ORIGINAL or REPLY, not '${arg(opt)}'`);
          // ctinfo >= IP_CT_IS_REPLY; no conntrack entry: no match.
          checks.push(
            (c) => c.ct.conn !== null && ((c.ct.dir === 'reply') === (dir === 'REPLY')) !== neg,
          );
          break;
        }
        case '--vmethod': {
          const m = arg(opt).toUpperCase();
          if (m !== 'GATE' && m !== 'IPIP' && m !== 'MASQ')
            fail(opt.column, `--vmethod is GATE, IPIP or MASQ, not '${arg(opt)}'`);
          // Every IPVS connection the lab models forwards by masquerading (VS/NAT).
          checks.push(() => (m === 'MASQ') !== neg);
          break;
        }
        default:
          // --vportctl: the controlling connection (FTP helpers), which the lab never has.
          checks.push(() => neg);
      }
    }
    const onlyProperty = property !== null && proto === null && checks.length === 0;
    cx.add((c) => {
      const has = c.ipvs?.property === true;
      if (onlyProperty) return has !== (property as { negated: boolean }).negated;
      if (!has) return false;
      if (proto && (c.pkt.proto === proto.value) === proto.negated) return false;
      const conn = connOf(c);
      if (!conn) return false;
      return checks.every((k) => k(c, conn));
    });
  },
};
