/**
 * What the two ipvsadm formats (ipvsadm.ts: `-Ln`; ipvsadm-rules.ts: `-S -n`) share: the table
 * being read, ipvsadm's numeric `ADDRESS:PORT`, and the problems placed at a line and column.
 */
import type { Diagnostic } from '../../engine/index.ts';
import { canonicalIp, type IpvsForward, type IpvsProto } from '../../engine/index.ts';
import { said, type OwnNote, type Said } from './types.ts';

export interface Server {
  address: string;
  port: number;
  weight: number;
  forward: IpvsForward;
  line: number;
  column: number;
}

export interface Service {
  proto: IpvsProto;
  address: string;
  port: number;
  scheduler: string;
  persistent: number | null;
  line: number;
  schedulerColumn: number;
  servers: Server[];
}

/** What a parse builds: the services by `proto|address|port`, and the problems found. */
export interface Table {
  readonly services: Map<string, Service>;
  readonly diagnostics: Diagnostic[];
  readonly unsupported: OwnNote[];
}

/** `10.96.0.10:53`, `[fd00::10]:53`: ipvsadm's numeric address and port. */
export function addrPort(s: string): { address: string; port: number } | null {
  const m = /^\[([0-9A-Fa-f:.]+)\]:(\d{1,5})$/.exec(s) ?? /^([0-9.]+):(\d{1,5})$/.exec(s);
  if (!m) return null;
  const address = canonicalIp(m[1] as string);
  const port = Number(m[2]);
  if (address === null || port > 65535) return null;
  if (m[0].startsWith('[') !== address.includes(':')) return null;
  return { address, port };
}

/** What to say of an address that is not numeric, in the listing of `command`. */
export function notNumeric(value: string, command: string): Said {
  return said('ipvsadm.not-numeric', { value, command });
}

/** The 1-based column of word `k` of a line split on white space. */
export function columns(raw: string): { words: string[]; cols: number[] } {
  const words: string[] = [];
  const cols: number[] = [];
  for (const m of raw.matchAll(/\S+/g)) {
    words.push(m[0]);
    cols.push((m.index ?? 0) + 1);
  }
  return { words, cols };
}

export function newTable(): Table {
  return { services: new Map(), diagnostics: [], unsupported: [] };
}

export function err(t: Table, line: number, column: number, message: Said): void {
  t.diagnostics.push({ severity: 'error', line, column, ...message });
}

export function warn(t: Table, line: number, column: number, message: Said): void {
  t.diagnostics.push({ severity: 'warning', line, column, ...message });
}

export function notModelled(flag: string, value: string): Said {
  if (flag === 'mask' || flag === '-M') return said('ipvsadm.mask', { value });
  if (flag === 'pe' || flag === '--pe') return said('ipvsadm.pe', { value });
  if (flag === 'ops' || flag === '-o' || flag === '--ops') return said('ipvsadm.ops');
  return said('ipvsadm.sched-flags', { flag, value });
}

/** Adds a virtual service, or says where it was defined before. */
export function addService(t: Table, svc: Service, column: number): Service | null {
  const key = `${svc.proto}|${svc.address}|${svc.port}`;
  const was = t.services.get(key);
  if (was) {
    err(t, svc.line, column, said('ipvsadm.service-twice', { line: was.line }));
    return null;
  }
  t.services.set(key, svc);
  return svc;
}

export function addServer(t: Table, svc: Service, s: Server): void {
  const was = svc.servers.find((x) => x.address === s.address && x.port === s.port);
  if (was) err(t, s.line, s.column, said('ipvsadm.server-twice', { line: was.line }));
  else svc.servers.push(s);
}
