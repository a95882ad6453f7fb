/**
 * `ipvsadm -Ln` and `ipvsadm -S -n` text of an IPVS table. ipvsadm sorts what it prints (libipvs
 * ipvs_sort_services / ipvs_sort_dests: protocol number, then address, then port), so the listing
 * does not depend on the order kube-proxy added services in (a Go map order).
 */
import { ipToNum } from '../ip.ts';
import type { IpvsForward, IpvsSpec } from './spec.ts';
import { compileIpvs, hostPort, type RealServer, type VirtualService } from './table.ts';

const PROTO_NUM: Readonly<Record<string, number>> = { tcp: 6, udp: 17, sctp: 132 };

function cmpAddr(a: string, b: string): number {
  const x = ipToNum(a);
  const y = ipToNum(b);
  if (x === null || y === null) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function sortedServices(spec: IpvsSpec): VirtualService[] {
  return [...compileIpvs(spec).table.services.values()].sort(
    (a, b) =>
      (PROTO_NUM[a.proto] ?? 0) - (PROTO_NUM[b.proto] ?? 0) ||
      cmpAddr(a.address, b.address) ||
      a.port - b.port,
  );
}

function sortedDests(s: VirtualService): RealServer[] {
  return [...s.realServers].sort((a, b) => cmpAddr(a.address, b.address) || a.port - b.port);
}

/** ipvsadm.c fwd_name: the Forward column. */
export const FWD_NAME: Readonly<Record<IpvsForward, string>> = {
  masq: 'Masq',
  local: 'Local',
  tunnel: 'Tunnel',
  route: 'Route',
};

/** ipvsadm.c fwd_switch: the option of `-a` in `ipvsadm -S` (Local and Route both print -g). */
const FWD_SWITCH: Readonly<Record<IpvsForward, string>> = {
  masq: '-m',
  local: '-g',
  tunnel: '-i',
  route: '-g',
};

/** `ipvsadm -Ln`: the services with their real servers (connection counters are not modelled: 0). */
export function ipvsadmList(spec: IpvsSpec): string {
  const out = [
    'IP Virtual Server version 1.2.1 (size=4096)',
    'Prot LocalAddress:Port Scheduler Flags',
    '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
  ];
  for (const s of sortedServices(spec)) {
    const persist = s.persistent !== null ? ` persistent ${s.persistent}` : '';
    out.push(`${s.proto.toUpperCase()}  ${hostPort(s.address, s.port)} ${s.scheduler}${persist}`);
    for (const d of sortedDests(s)) {
      const addr = hostPort(d.address, d.port).padEnd(28);
      out.push(
        `  -> ${addr} ${FWD_NAME[d.forward].padEnd(7)} ${String(d.weight).padEnd(6)} ${'0'.padEnd(10)} 0`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

const SERVICE_FLAG: Readonly<Record<string, string>> = {
  tcp: '-t',
  udp: '-u',
  sctp: '--sctp-service',
};

/** `ipvsadm -S -n`: the commands that rebuild the table (`ipvsadm -R` reads them). */
export function ipvsadmSave(spec: IpvsSpec): string {
  const out: string[] = [];
  for (const s of sortedServices(spec)) {
    const vs = `${SERVICE_FLAG[s.proto]} ${hostPort(s.address, s.port)}`;
    const persist = s.persistent !== null ? ` -p ${s.persistent}` : '';
    out.push(`-A ${vs} -s ${s.scheduler}${persist}`);
    for (const d of sortedDests(s))
      out.push(
        `-a ${vs} -r ${hostPort(d.address, d.port)} ${FWD_SWITCH[d.forward]} -w ${d.weight}`,
      );
  }
  return out.length ? `${out.join('\n')}\n` : '';
}
