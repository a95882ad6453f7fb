/**
 * Felix's static chains (felix/rules/static.go, projectcalico/calico
 * 87c15906f20c4ca1fda55af92295e7678b0cc0b2) for an iptables-dataplane node with Felix's default
 * configuration and BGP-routed pods: no IPIP, VXLAN, WireGuard, IPVS, BPF or OpenStack special
 * cases, workload interfaces `cali+`, DefaultEndpointToHostAction DROP, FilterAllowAction and
 * MangleAllowAction ACCEPT, FilterDenyAction DROP (felix/config/config_params.go defaults).
 */
import { ipsetName } from './hash.ts';
import { A, M, type FChain, type FRule } from './iptables.ts';
import { ALL_CALICO_MARKS, MARKS } from './marks.ts';

export interface ProtoPort {
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
}

const pp = (s: string): ProtoPort[] =>
  s.split(',').map((x) => {
    const [protocol, port] = x.split(':') as ['tcp' | 'udp', string];
    return { protocol, port: Number(port) };
  });

/** FailsafeInboundHostPorts / FailsafeOutboundHostPorts defaults (config_params.go). */
export const FAILSAFE_IN = pp(
  'tcp:22,udp:68,tcp:179,tcp:2379,tcp:2380,tcp:5473,tcp:6443,tcp:6666,tcp:6667',
);
export const FAILSAFE_OUT = pp(
  'udp:53,udp:67,tcp:179,tcp:2379,tcp:2380,tcp:5473,tcp:6443,tcp:6666,tcp:6667',
);

const WL = 'cali+';

export const SET = {
  networkPools: ipsetName('network-ip-pools'),
  masqPools: ipsetName('masq-ipam-pools'),
  thisHost: ipsetName('this-host'),
  dscp: ipsetName('dscp-src-net'),
};

/** failsafeInChain: inbound ports by destination; in raw, outbound ones by source (replies). */
function failsafeIn(table: 'raw' | 'mangle' | 'filter'): FChain {
  const rules: FRule[] = FAILSAFE_IN.map((p) => ({
    match: [M.proto(p.protocol), M.dstPorts(String(p.port))],
    action: A.accept,
  }));
  if (table === 'raw')
    for (const p of FAILSAFE_OUT)
      rules.push({ match: [M.proto(p.protocol), M.srcPorts(String(p.port))], action: A.accept });
  return { name: 'cali-failsafe-in', rules };
}

function failsafeOut(table: 'raw' | 'mangle' | 'filter'): FChain {
  const rules: FRule[] = FAILSAFE_OUT.map((p) => ({
    match: [M.proto(p.protocol), M.dstPorts(String(p.port))],
    action: A.accept,
  }));
  if (table === 'raw')
    for (const p of FAILSAFE_IN)
      rules.push({ match: [M.proto(p.protocol), M.srcPorts(String(p.port))], action: A.accept });
  return { name: 'cali-failsafe-out', rules };
}

const acceptedHere: FRule = {
  match: [M.markSet(MARKS.accept)],
  action: A.accept,
  comment: ['Host endpoint policy accepted packet.'],
};

export function staticFilterChains(): FChain[] {
  return [
    {
      // StaticFilterForwardChains: the accept bit carries a raw/pre-DNAT verdict, so it stays.
      name: 'cali-FORWARD',
      rules: [
        { action: A.clearMark(ALL_CALICO_MARKS & ~MARKS.accept) },
        { match: [M.markClear(MARKS.accept)], action: A.jump('cali-from-hep-forward') },
        { match: [M.inIf(WL)], action: A.jump('cali-from-wl-dispatch') },
        { match: [M.outIf(WL)], action: A.jump('cali-to-wl-dispatch') },
        { action: A.jump('cali-to-hep-forward') },
        { action: A.jump('cali-cidr-block') },
      ],
    },
    {
      name: 'cali-INPUT',
      rules: [
        { match: [M.inIf(WL)], action: A.goto('cali-wl-to-host') },
        { match: [M.markSet(MARKS.accept)], action: A.accept },
        { action: A.clearMark(ALL_CALICO_MARKS) },
        { action: A.jump('cali-from-host-endpoint') },
        acceptedHere,
      ],
    },
    {
      name: 'cali-wl-to-host',
      rules: [
        { action: A.jump('cali-from-wl-dispatch') },
        { action: A.drop, comment: ['Configured DefaultEndpointToHostAction'] },
      ],
    },
    failsafeIn('filter'),
    {
      // filterOutputChain: DNATed host traffic gets its host endpoint policy in mangle
      // POSTROUTING instead, where the output interface is final.
      name: 'cali-OUTPUT',
      rules: [
        { match: [M.markSet(MARKS.accept)], action: A.accept },
        { match: [M.outIf(WL)], action: A.ret },
        { action: A.clearMark(ALL_CALICO_MARKS) },
        { match: [M.notCtstate('DNAT')], action: A.jump('cali-to-host-endpoint') },
        acceptedHere,
      ],
    },
    failsafeOut('filter'),
    { name: 'cali-cidr-block', rules: [] },
  ];
}

/** StaticFilterForwardAppendRules: appended to FORWARD, after kube-proxy's rules. */
export const FORWARD_APPENDS: readonly FRule[] = [
  {
    match: [M.markSet(MARKS.accept)],
    action: A.accept,
    comment: ['Policy explicitly accepted packet.'],
  },
  { action: A.setMark(MARKS.accept) },
];

export function staticNatChains(natOutgoing: boolean): FChain[] {
  return [
    { name: 'cali-PREROUTING', rules: [{ action: A.jump('cali-fip-dnat') }] },
    {
      name: 'cali-POSTROUTING',
      rules: [{ action: A.jump('cali-fip-snat') }, { action: A.jump('cali-nat-outgoing') }],
    },
    { name: 'cali-OUTPUT', rules: [{ action: A.jump('cali-fip-dnat') }] },
    { name: 'cali-fip-dnat', rules: [] },
    { name: 'cali-fip-snat', rules: [] },
    {
      // NATOutgoingChain (felix/rules/nat.go): pools with natOutgoing, to outside every pool.
      name: 'cali-nat-outgoing',
      rules: natOutgoing
        ? [{ match: [M.srcSet(SET.masqPools), M.notDstSet(SET.networkPools)], action: A.masq }]
        : [],
    },
  ];
}

export function staticMangleChains(): FChain[] {
  return [
    failsafeIn('mangle'),
    failsafeOut('mangle'),
    {
      name: 'cali-PREROUTING',
      rules: [
        { match: [M.ctstate('RELATED,ESTABLISHED')], action: A.accept },
        { match: [M.markSet(MARKS.accept)], action: A.accept },
        { action: A.jump('cali-from-host-endpoint') },
        acceptedHere,
      ],
    },
    {
      name: 'cali-POSTROUTING',
      rules: [
        {
          match: [M.srcSet(SET.dscp), M.notDstSet(SET.networkPools), M.notDstSet(SET.thisHost)],
          action: A.jump('cali-egress-dscp'),
          comment: ['set dscp for traffic leaving cluster.'],
        },
        { match: [M.markSet(MARKS.accept)], action: A.ret },
        { action: A.clearMark(ALL_CALICO_MARKS) },
        { match: [M.ctstate('DNAT')], action: A.jump('cali-to-host-endpoint') },
        {
          match: [M.markSet(MARKS.accept)],
          action: A.ret,
          comment: ['Host endpoint policy accepted packet.'],
        },
      ],
    },
    { name: 'cali-egress-dscp', rules: [] },
  ];
}

export function staticRawChains(): FChain[] {
  const fromWorkload = MARKS.scratch0;
  return [
    failsafeIn('raw'),
    failsafeOut('raw'),
    {
      name: 'cali-PREROUTING',
      rules: [
        { action: A.clearMark(ALL_CALICO_MARKS) },
        { match: [M.inIf(WL)], action: A.setMark(fromWorkload) },
        { match: [M.markSet(fromWorkload)], action: A.jump('cali-rpf-skip') },
        { match: [M.markSet(fromWorkload), M.rpfCheckFailed()], action: A.drop },
        { match: [M.markClear(fromWorkload)], action: A.jump('cali-from-host-endpoint') },
        { match: [M.markSet(MARKS.accept)], action: A.accept },
      ],
    },
    {
      name: 'cali-OUTPUT',
      rules: [
        { action: A.clearMark(ALL_CALICO_MARKS) },
        { action: A.jump('cali-to-host-endpoint') },
        { match: [M.markSet(MARKS.accept)], action: A.accept },
      ],
    },
    { name: 'cali-rpf-skip', rules: [] },
  ];
}
