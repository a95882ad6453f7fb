/**
 * The IPVS table of a host as plain data (what `ipvsadm -S` would restore): virtual services with
 * their scheduler, persistence and real servers, plus the `net.ipv4.vs.conntrack` sysctl. Only
 * masquerading (NAT) forwarding is modelled: it is the only method kube-proxy uses
 * (pkg/proxy/ipvs/util/ipvs.go: real servers are added without a forwarding flag, i.e.
 * IP_VS_CONN_F_MASQ). A real server with another method (a pasted `ipvsadm -Ln` of a non
 * kube-proxy table) is kept, and a connection scheduled to it stops as not modelled.
 */
export type IpvsProto = 'tcp' | 'udp' | 'sctp';

/**
 * The forwarding method of a real server (IP_VS_CONN_F_FWD_MASK of its conn_flags; ipvsadm.c
 * fwd_name: Masq, Local, Tunnel, Route). Only `masq` is modelled.
 */
export type IpvsForward = 'masq' | 'local' | 'tunnel' | 'route';

export interface IpvsRealServerSpec {
  readonly address: string;
  readonly port: number;
  /** ipvsadm -w; kube-proxy always writes 1. Weight 0 takes no new connections. */
  readonly weight?: number;
  /** Default `masq`, kube-proxy's. */
  readonly forward?: IpvsForward;
}

export interface IpvsServiceSpec {
  readonly proto: IpvsProto;
  readonly address: string;
  readonly port: number;
  /** ipvsadm -s; kube-proxy's default is `rr`. The lab models `rr` and `wrr`. */
  readonly scheduler?: string;
  /** ipvsadm -p SECONDS (IP_VS_SVC_F_PERSISTENT): kube-proxy's sessionAffinity ClientIP. */
  readonly persistent?: number;
  readonly realServers: readonly IpvsRealServerSpec[];
  /** Who asked for it, for display (kube-proxy's service port name, `ns/name:port`). */
  readonly owner?: string;
}

export interface IpvsSpec {
  readonly services: readonly IpvsServiceSpec[];
  /**
   * net.ipv4.vs.conntrack: keep IPVS connections in conntrack, so iptables NAT (MASQUERADE in
   * POSTROUTING) still applies to them. kube-proxy sets it to 1 (pkg/proxy/ipvs/proxier.go,
   * NewProxier: sysctlVSConnTrack); the kernel's default is 0. Default here: true.
   */
  readonly conntrack?: boolean;
}
