/**
 * A Linux bridge (cni0 of flannel, kind's kindnet bridge, the bridge CNI plugin) on a host: its
 * ports are veths to pods; a frame entering a port is forwarded by the bridge at L2 to the port
 * behind which its destination MAC sits, or handed up to the host's IP stack when it is for the
 * bridge's own MAC (the pods' gateway). With br_netfilter and bridge-nf-call-iptables=1 the
 * bridged IPv4 frame also traverses the IPv4 PREROUTING, FORWARD and POSTROUTING hooks, which is
 * what lets kube-proxy's DNAT and its conntrack entry work between pods on one bridge.
 * Sources: net/bridge/br_input.c (br_handle_frame_finish), br_forward.c (br_forward,
 * should_deliver: hairpin), br_netfilter_hooks.c (br_nf_pre_routing, br_nf_pre_routing_finish,
 * br_nf_forward_ip, br_nf_post_routing, ip_sabotage_in), Linux 6.18.
 */
import type { HostConfig } from './host.ts';
import type { Packet } from './packet.ts';
import type { BridgeAction } from './trace.ts';
import {
  bridgeForward,
  bridgePrerouting,
  bridgeReroute,
  receive,
  type StackEnv,
  type StackResult,
} from './stack.ts';

/** Where the bridge sends a frame: up its own stack, or out of a port to the host behind it. */
export type BridgeDest =
  | { readonly kind: 'local' }
  | { readonly kind: 'port'; readonly port: string; readonly host: string; readonly iface: string };

/** The bridge `iface` is a port of, or null. */
export function masterOf(cfg: HostConfig, iface: string): string | null {
  return cfg.ifaces.get(iface)?.master ?? null;
}

/** The ports of a bridge, in the host's interface order. */
export function portsOf(cfg: HostConfig, bridge: string): string[] {
  return [...cfg.ifaces.values()].filter((i) => i.master === bridge).map((i) => i.name);
}

export function isBridge(cfg: HostConfig, iface: string): boolean {
  return cfg.ifaces.get(iface)?.kind === 'bridge';
}

function emit(
  env: StackEnv,
  pkt: Packet,
  bridge: string,
  action: BridgeAction,
  inPort: string | null,
  outPort: string | null,
): void {
  env.tracer.emit({
    type: 'bridge',
    packet: pkt,
    bridge,
    action,
    inPort,
    outPort,
    explain: {
      key: `bridge.${action}`,
      params: { bridge, ...(inPort ? { in: inPort } : {}), ...(outPort ? { out: outPort } : {}) },
    },
  });
}

/** The bridge's answer for one frame: a StackResult, or `bridged` out of a port. */
export type BridgeResult =
  | StackResult
  | {
      readonly kind: 'bridged';
      readonly pkt: Packet;
      readonly outPort: string;
      readonly toHost: string;
      readonly toIf: string;
    };

/**
 * A frame entering `bridge` by `inPort`, addressed (by the MAC the sender's ARP found) to
 * `dest`. `resolve` finds which port a new destination sits behind (a bridged DNAT).
 */
export function bridgeInput(
  env: StackEnv,
  pkt: Packet,
  bridge: string,
  inPort: string,
  dest: BridgeDest,
  resolve: (ip: string) => BridgeDest | null,
): BridgeResult {
  const cfg = env.host.config;
  if (!cfg.bridgeNfCallIptables) {
    // br_nf_pre_routing returns NF_ACCEPT before allocating any bridge info: the frame is
    // bridged with no iptables rule and no conntrack, or goes up the stack as from the bridge.
    emit(env, pkt, bridge, 'nf-off', inPort, null);
    if (dest.kind === 'local') {
      emit(env, pkt, bridge, 'local', inPort, null);
      return receive(env, pkt, bridge, null);
    }
    return toPort(env, pkt, bridge, inPort, dest, null);
  }
  emit(env, pkt, bridge, 'nf-prerouting', inPort, null);
  const pre = bridgePrerouting(env, pkt, bridge, inPort);
  if (pre.kind !== 'accept') return pre;
  let d = dest;
  // br_nf_ipv4_daddr_was_changed: a DNAT in PREROUTING re-routes the frame.
  if (pre.pkt.dst !== pkt.dst) {
    const where = bridgeReroute(env, pre.pkt, bridge);
    if (where === null) return { kind: 'dropped', reason: 'no route after DNAT', pkt: pre.pkt };
    if (where === 'bridge') {
      const nd = resolve(pre.pkt.dst);
      if (!nd || nd.kind === 'local')
        return { kind: 'dropped', reason: `nobody answers ARP for ${pre.pkt.dst}`, pkt: pre.pkt };
      emit(env, pre.pkt, bridge, 'dnat-bridged', inPort, nd.port);
      d = nd;
    } else d = { kind: 'local' };
  }
  if (d.kind === 'local') {
    emit(env, pre.pkt, bridge, 'local', inPort, null);
    return receive(env, pre.pkt, bridge, null, { ct: pre.ct, phys: { in: inPort, out: null } });
  }
  return toPort(env, pre.pkt, bridge, inPort, d, pre.ct);
}

/** br_forward: out of the destination's port, unless that is the way in and hairpin is off. */
function toPort(
  env: StackEnv,
  pkt: Packet,
  bridge: string,
  inPort: string,
  d: Extract<BridgeDest, { kind: 'port' }>,
  ct: Parameters<typeof bridgeForward>[2] | null,
): BridgeResult {
  if (d.port === inPort && !env.host.config.ifaces.get(inPort)?.hairpin) {
    emit(env, pkt, bridge, 'hairpin-drop', inPort, d.port);
    return { kind: 'dropped', reason: `hairpin mode is off on ${inPort}`, pkt };
  }
  emit(env, pkt, bridge, 'forward', inPort, d.port);
  let out = pkt;
  if (ct) {
    emit(env, pkt, bridge, 'nf-forward', inPort, d.port);
    const res = bridgeForward(env, pkt, ct, bridge, inPort, d.port, () =>
      emit(env, pkt, bridge, 'nf-postrouting', inPort, d.port),
    );
    if (res.kind !== 'transmit') return res;
    out = res.pkt;
  }
  return { kind: 'bridged', pkt: out, outPort: d.port, toHost: d.host, toIf: d.iface };
}
