/**
 * NAT targets: DNAT, SNAT, MASQUERADE, REDIRECT (net/netfilter/xt_nat.c, xt_MASQUERADE.c,
 * xt_REDIRECT.c; extensions/libxt_DNAT.c). kube-proxy writes DNAT in every KUBE-SEP-* chain and
 * MASQUERADE in KUBE-POSTROUTING.
 */
import { ipToNum } from '../../ip.ts';
import { arg, fail, o, option, type CompileCx, type TargetExtension } from '../extension.ts';
import type { PortRange } from '../target-op.ts';
import { parsePortRange } from '../values.ts';

/**
 * As iptables 1.8.9 checks it: the protocol number only (`! -p tcp` passes), and ICMP (its echo
 * id is NAT's "port") is accepted though the message does not say so.
 */
const PORT_PROTOCOLS = new Set(['tcp', 'udp', 'sctp', 'dccp', 'icmp', '6', '17', '132', '33', '1']);

/**
 * NAT to a port needs a protocol with ports: iptables-restore refuses the rule otherwise
 * ("Need TCP, UDP, SCTP or DCCP with port specification", libxt_DNAT.c; seen with 1.8.9).
 */
function needPortProtocol(cx: CompileCx, column: number, target: string): void {
  const ok = cx.protos.some((p) => PORT_PROTOCOLS.has(p.value));
  if (!ok) {
    fail(
      column,
      `${target} to a port needs -p tcp, udp, sctp or dccp in the same rule`,
      'iptables-restore refuses this rule: "Need TCP, UDP, SCTP or DCCP with port specification".',
    );
  }
}

/** 10.0.0.1, 10.0.0.1:80, 10.0.0.1:80-90, :80, [fd00::1]:80, 10.0.0.1-10.0.0.5 (first used). */
function parseNatTo(
  text: string,
  column: number,
  family: 4 | 6,
): { ip: string | null; ports: PortRange | null } {
  let host = text;
  let portText: string | null = null;
  const v6 = text.charCodeAt(0) === 91 /* [ */ ? /^\[([^\]]+)\](?::(.+))?$/.exec(text) : null;
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
    const dash = host.indexOf('-');
    const first = dash < 0 ? host : host.slice(0, dash);
    if (ipToNum(first) === null)
      return fail(column, `'${text}' is not an address[:port]`, 'For example 10.244.1.5:80.');
    ip = first;
  }
  if (portText === null) return { ip, ports: null };
  const dash = portText.indexOf('-');
  return { ip, ports: parsePortRange(dash < 0 ? portText : portText.replace('-', ':'), column) };
}

export const DNAT: TargetExtension = {
  name: 'DNAT',
  supported: true,
  options: { '--to-destination': o(1), '--random': o(0), '--persistent': o(0) },
  place: { tables: ['nat'], hooks: ['PREROUTING', 'OUTPUT'] },
  compile(t, cx) {
    const opt = option(t, '--to-destination');
    if (!opt)
      return fail(
        t.column,
        'DNAT needs --to-destination',
        'For example: -j DNAT --to-destination 10.244.1.5:80',
      );
    const to = parseNatTo(arg(opt), opt.column, cx.family);
    if (to.ports) needPortProtocol(cx, opt.column, 'DNAT');
    return { kind: 'dnat', ip: to.ip, ports: to.ports };
  },
};

export const SNAT: TargetExtension = {
  name: 'SNAT',
  supported: true,
  options: {
    '--to-source': o(1),
    '--random': o(0),
    '--random-fully': o(0),
    '--persistent': o(0),
  },
  place: { tables: ['nat'], hooks: ['POSTROUTING', 'INPUT'] },
  compile(t, cx) {
    const opt = option(t, '--to-source');
    if (!opt)
      return fail(
        t.column,
        'SNAT needs --to-source',
        'For example: -j SNAT --to-source 192.168.50.38',
      );
    const to = parseNatTo(arg(opt), opt.column, cx.family);
    if (to.ip === null) return fail(opt.column, 'SNAT --to-source needs an address');
    if (to.ports) needPortProtocol(cx, opt.column, 'SNAT');
    return {
      kind: 'snat',
      ip: to.ip,
      ports: to.ports,
      randomPort: option(t, '--random-fully') !== undefined,
    };
  },
};

function toPorts(name: string, t: Parameters<TargetExtension['compile']>[0], cx: CompileCx) {
  const opt = option(t, '--to-ports');
  const ports = opt ? parsePortRange(arg(opt).replace('-', ':'), opt.column) : null;
  if (opt) needPortProtocol(cx, opt.column, name);
  return ports;
}

export const MASQUERADE: TargetExtension = {
  name: 'MASQUERADE',
  supported: true,
  options: { '--to-ports': o(1), '--random': o(0), '--random-fully': o(0) },
  place: { tables: ['nat'], hooks: ['POSTROUTING'] },
  compile(t, cx) {
    const ports = toPorts('MASQUERADE', t, cx);
    // --random-fully: the kernel draws the source port at random (NF_NAT_RANGE_PROTO_RANDOM_FULLY).
    return { kind: 'masquerade', ports, randomPort: option(t, '--random-fully') !== undefined };
  },
};

export const REDIRECT: TargetExtension = {
  name: 'REDIRECT',
  supported: true,
  options: { '--to-ports': o(1), '--random': o(0) },
  place: { tables: ['nat'], hooks: ['PREROUTING', 'OUTPUT'] },
  compile: (t, cx) => ({ kind: 'redirect', ports: toPorts('REDIRECT', t, cx) }),
};
