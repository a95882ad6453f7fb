/**
 * A host's IPVS table compiled from its spec, and the state IPVS keeps while packets flow: the
 * connection table (net/netfilter/ipvs/ip_vs_conn.c) and persistence templates
 * (IP_VS_CONN_F_TEMPLATE, ip_vs_sched_persist in ip_vs_core.c). Plain data, cloned with the host.
 */
import { fieldError, type Diagnostic } from '../diagnostic.ts';
import { canonicalIp } from '../ip.ts';
import type { L4Proto } from '../packet.ts';
import type { IpvsForward, IpvsProto, IpvsSpec } from './spec.ts';

export interface RealServer {
  readonly address: string;
  readonly port: number;
  readonly weight: number;
  readonly forward: IpvsForward;
}

export interface VirtualService {
  readonly proto: IpvsProto;
  readonly address: string;
  readonly port: number;
  readonly scheduler: 'rr' | 'wrr';
  /** Persistence timeout in seconds, or null. */
  readonly persistent: number | null;
  readonly realServers: readonly RealServer[];
  readonly owner: string | null;
}

export interface IpvsTable {
  readonly services: ReadonlyMap<string, VirtualService>;
  readonly conntrack: boolean;
}

/** One entry of the connection table: client, virtual service, chosen real server. */
export interface IpvsConn {
  readonly proto: L4Proto;
  readonly caddr: string;
  readonly cport: number;
  readonly vaddr: string;
  readonly vport: number;
  readonly daddr: string;
  readonly dport: number;
}

export interface IpvsState {
  readonly conns: IpvsConn[];
  /** Persistence templates: `proto|client|vaddr|vport` -> real server and expiry time. */
  readonly templates: Map<
    string,
    { readonly daddr: string; readonly dport: number; readonly expires: number }
  >;
}

export function newIpvsState(): IpvsState {
  return { conns: [], templates: new Map() };
}

export function cloneIpvsState(s: IpvsState): IpvsState {
  return { conns: [...s.conns], templates: new Map(s.templates) };
}

export function serviceKey(proto: string, address: string, port: number): string {
  return `${proto}|${address}|${port}`;
}

/** `ip:port`, `[ip]:port` for IPv6, as ipvsadm prints addresses. */
export function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** The service line of `ipvsadm -Ln`: `TCP  10.96.0.10:53 rr`. */
export function serviceText(s: VirtualService): string {
  const persist = s.persistent !== null ? ` persistent ${s.persistent}` : '';
  return `${s.proto.toUpperCase()} ${hostPort(s.address, s.port)} ${s.scheduler}${persist}`;
}

const SCHEDULERS = new Set(['rr', 'wrr']);

/** Validates and indexes the spec (ip_vs_service_find looks services up by protocol, address, port). */
export function compileIpvs(spec: IpvsSpec): { table: IpvsTable; problems: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  const services = new Map<string, VirtualService>();
  spec.services.forEach((s, i) => {
    const field = `ipvs.services[${i}]`;
    const address = canonicalIp(s.address);
    if (address === null) {
      problems.push(fieldError(`${field}.address`, `'${s.address}' is not an address`));
      return;
    }
    const scheduler = s.scheduler ?? 'rr';
    if (!SCHEDULERS.has(scheduler)) {
      problems.push(
        fieldError(
          `${field}.scheduler`,
          `scheduler '${scheduler}' is not modelled; use rr (kube-proxy's default) or wrr`,
        ),
      );
      return;
    }
    const realServers: RealServer[] = [];
    s.realServers.forEach((r, j) => {
      const ip = canonicalIp(r.address);
      if (ip === null || ip.includes(':') !== address.includes(':')) {
        problems.push(
          fieldError(
            `${field}.realServers[${j}].address`,
            `'${r.address}' is not an address of the virtual service's family`,
          ),
        );
        return;
      }
      realServers.push({
        address: ip,
        port: r.port,
        weight: r.weight ?? 1,
        forward: r.forward ?? 'masq',
      });
    });
    const key = serviceKey(s.proto, address, s.port);
    if (services.has(key)) {
      problems.push(fieldError(field, `virtual service ${key} is defined twice`));
      return;
    }
    services.set(key, {
      proto: s.proto,
      address,
      port: s.port,
      scheduler: scheduler as 'rr' | 'wrr',
      persistent: s.persistent ?? null,
      realServers,
      owner: s.owner ?? null,
    });
  });
  return { table: { services, conntrack: spec.conntrack ?? true }, problems };
}
