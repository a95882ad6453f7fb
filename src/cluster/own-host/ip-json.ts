/**
 * iproute2's JSON: `ip -j addr` (`ip -j -6 addr`) into interfaces, `ip -j route` (`ip -j -6
 * route`, `ip -j route show table all`) into routes. Field names are iproute2's (ip/ipaddress.c
 * print_addrinfo, ip/iproute.c print_route: ifname, link_type, addr_info[].local/prefixlen/scope;
 * dst, gateway, dev, prefsrc, metric, type, table, protocol, nexthops[]).
 */
import type { Diagnostic } from '../../engine/index.ts';
import type { InterfaceSpec, RouteSpec } from '../../engine/index.ts';
import { canonicalIp, parseCidr } from '../../engine/index.ts';
import { objectStarts, parseJson } from './json-text.ts';
import type { OwnHostErrorKey, OwnHostParams } from './messages.ts';
import { ownNote, said, type DumpCounts, type OwnNote } from './types.ts';

export interface Imported<T> {
  readonly items: readonly T[];
  readonly counts: DumpCounts;
  readonly diagnostics: readonly Diagnostic[];
  readonly ignored: readonly OwnNote[];
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Cx {
  readonly diagnostics: Diagnostic[];
  readonly starts: { line: number; column: number }[];
}

function problem(
  cx: Cx,
  i: number,
  field: string,
  key: OwnHostErrorKey,
  params?: OwnHostParams,
): void {
  const at = cx.starts[i] ?? { line: 0, column: 0 };
  cx.diagnostics.push({ severity: 'error', ...at, field, ...said(key, params) });
}

function topArray(text: string, command: string): { list: unknown[]; cx: Cx } | Diagnostic {
  const parsed = parseJson(text);
  if ('error' in parsed) return parsed.error;
  if (!Array.isArray(parsed.value))
    return {
      severity: 'error',
      line: 1,
      column: 1,
      field: '$',
      ...said('json.not-array', { command }),
    };
  return { list: parsed.value, cx: { diagnostics: [], starts: objectStarts(text) } };
}

/** Linux interface names: at most 15 bytes (IFNAMSIZ - 1), no '/', ':' or white space. */
const IFNAME = /^[^\s/:]{1,15}$/;

export function importAddr(text: string): Imported<InterfaceSpec> {
  const top = topArray(text, 'ip -j addr');
  if (!('list' in top)) return { items: [], counts: {}, diagnostics: [top], ignored: [] };
  const { list, cx } = top;
  const items: InterfaceSpec[] = [];
  let addresses = 0;
  list.forEach((o, i) => {
    if (!isObj(o)) return problem(cx, i, `[${i}]`, 'addr.not-object');
    const name = o.ifname;
    if (typeof name !== 'string' || !IFNAME.test(name))
      return problem(cx, i, `[${i}].ifname`, 'addr.ifname');
    const info = o.addr_info ?? [];
    if (!Array.isArray(info)) return problem(cx, i, `[${i}].addr_info`, 'addr.addr-info');
    const addrs: string[] = [];
    info.forEach((a, j) => {
      const at = `[${i}].addr_info[${j}]`;
      // `ip -j -6 addr` of an interface without IPv6 prints an empty object for it.
      if (isObj(a) && Object.keys(a).length === 0) return;
      if (!isObj(a) || typeof a.local !== 'string' || !canonicalIp(a.local))
        return problem(cx, i, `${at}.local`, 'addr.local');
      const plen = a.prefixlen;
      const max = a.local.includes(':') ? 128 : 32;
      if (typeof plen !== 'number' || !Number.isInteger(plen) || plen < 0 || plen > max)
        return problem(cx, i, `${at}.prefixlen`, 'addr.prefixlen', { max });
      const scope = a.scope === 'link' || a.scope === 'host' ? ` scope ${a.scope}` : '';
      addrs.push(`${a.local}/${plen}${scope}`);
    });
    addresses += addrs.length;
    const loopback = o.link_type === 'loopback' || name === 'lo';
    items.push({
      name,
      addresses: addrs,
      ...(loopback ? {} : { kind: kindOf(name, o) }),
    });
  });
  return {
    items,
    counts: { interfaces: items.length, addresses },
    diagnostics: cx.diagnostics,
    ignored: [],
  };
}

function kindOf(name: string, o: Obj): NonNullable<InterfaceSpec['kind']> {
  const info = isObj(o.linkinfo) ? o.linkinfo.info_kind : undefined;
  if (info === 'dummy' || name.startsWith('kube-ipvs') || name.startsWith('dummy')) return 'dummy';
  return 'ether';
}

const SKIPPED_TYPES: Readonly<Record<string, OwnHostErrorKey>> = {
  local: 'route.local-table',
  broadcast: 'route.local-table',
  multicast: 'route.multicast',
  anycast: 'route.local-table',
  throw: 'route.throw',
  nat: 'route.nat',
};

const KEPT_TYPES = new Set(['unicast', 'blackhole', 'unreachable', 'prohibit']);

function routeText(o: Obj): string {
  const parts = [
    o.type && o.type !== 'unicast' ? o.type : '',
    o.dst,
    o.gateway ? `via ${String(o.gateway)}` : '',
    o.dev ? `dev ${String(o.dev)}` : '',
    o.table ? `table ${String(o.table)}` : '',
    o.protocol ? `proto ${String(o.protocol)}` : '',
  ];
  return parts.filter((p) => typeof p === 'string' && p !== '').join(' ');
}

export function importRoute(text: string): Imported<RouteSpec> {
  const top = topArray(text, 'ip -j route');
  if (!('list' in top)) return { items: [], counts: {}, diagnostics: [top], ignored: [] };
  const { list, cx } = top;
  const items: RouteSpec[] = [];
  const ignored: OwnNote[] = [];
  list.forEach((o, i) => {
    if (!isObj(o)) return problem(cx, i, `[${i}]`, 'route.not-object');
    const line = cx.starts[i]?.line ?? 0;
    const type = typeof o.type === 'string' ? o.type : 'unicast';
    const table = typeof o.table === 'string' ? o.table : 'main';
    const dst = o.dst;
    if (typeof dst !== 'string' || (dst !== 'default' && !parseCidr(dst) && !canonicalIp(dst)))
      return problem(cx, i, `[${i}].dst`, 'route.dst');
    const skip = SKIPPED_TYPES[type];
    if (skip) return void ignored.push(ownNote(line, routeText(o), skip));
    if (!KEPT_TYPES.has(type))
      return void ignored.push(ownNote(line, routeText(o), 'route.type', { type }));
    if (table !== 'main')
      return void ignored.push(ownNote(line, routeText(o), 'route.table', { table }));
    // A connected route the kernel made for an address: the lab makes it from the address too.
    if (o.protocol === 'kernel' && o.gateway === undefined && o.nexthops === undefined)
      return void ignored.push(ownNote(line, routeText(o), 'route.connected'));
    const route = routeOf(cx, i, o, type as RouteSpec['type'] & string);
    if (route) items.push(route);
  });
  return { items, counts: { routes: items.length }, diagnostics: cx.diagnostics, ignored };
}

function routeOf(
  cx: Cx,
  i: number,
  o: Obj,
  type: NonNullable<RouteSpec['type']>,
): RouteSpec | null {
  const ip = (v: unknown, path: string): string | undefined | null => {
    if (v === undefined) return undefined;
    if (typeof v === 'string' && canonicalIp(v)) return v;
    problem(cx, i, path, 'not-ip', { value: String(v) });
    return null;
  };
  const via = ip(o.gateway, `[${i}].gateway`);
  const src = ip(o.prefsrc, `[${i}].prefsrc`);
  if (via === null || src === null) return null;
  if (
    o.metric !== undefined &&
    (typeof o.metric !== 'number' || !Number.isInteger(o.metric) || o.metric < 0)
  ) {
    problem(cx, i, `[${i}].metric`, 'route.metric');
    return null;
  }
  const nexthops: { via: string; dev?: string; weight?: number }[] = [];
  if (o.nexthops !== undefined) {
    if (!Array.isArray(o.nexthops)) {
      problem(cx, i, `[${i}].nexthops`, 'route.nexthops');
      return null;
    }
    for (const [j, h] of o.nexthops.entries()) {
      const hv = isObj(h) ? ip(h.gateway, `[${i}].nexthops[${j}].gateway`) : null;
      if (!isObj(h) || !hv) {
        if (hv === undefined)
          problem(cx, i, `[${i}].nexthops[${j}].gateway`, 'route.nexthop-gateway');
        return null;
      }
      nexthops.push({
        via: hv,
        ...(typeof h.dev === 'string' ? { dev: h.dev } : {}),
        ...(typeof h.weight === 'number' ? { weight: h.weight } : {}),
      });
    }
  }
  return {
    to: o.dst as string,
    ...(via ? { via } : {}),
    ...(typeof o.dev === 'string' ? { dev: o.dev } : {}),
    ...(src ? { src } : {}),
    ...(typeof o.metric === 'number' ? { metric: o.metric } : {}),
    ...(type !== 'unicast' ? { type } : {}),
    ...(nexthops.length ? { nexthops } : {}),
  };
}
