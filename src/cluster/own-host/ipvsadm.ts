/**
 * A node's IPVS table, from `ipvsadm -Ln` or `ipvsadm -S -n` (`ipvsadm-save -n`), into the
 * engine's IpvsSpec (HostSpec.ipvs). The formats are ipvsadm's (ipvsadm.c, v1.26 and later;
 * git.kernel.org/pub/scm/utils/kernel/ipvsadm, mirrored at github.com/Distrotech/ipvsadm):
 *
 *   list_all:            "IP Virtual Server version %d.%d.%d (size=%d)" (not with -S)
 *   print_title:         "Prot LocalAddress:Port Scheduler Flags"
 *                        "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn"
 *   print_service_entry: "%s  %s" (TCP, UDP, SCTP; FWM for a firewall mark) then " %s" the
 *                        scheduler, " persistent %u", " mask %s", " pe %s", " ops";
 *                        each server "  -> %-28s %-7s %-6d %-10u %-10u" (fwd_name: Masq, Local,
 *                        Tunnel, Route; weight; active and inactive connections);
 *                        with FMT_RULE (-S): "-A %s -s %s" [" -p %u" [" -M %s"]] and
 *                        "-a %s -r %s %s -w %d" (fwd_switch: -m, -i, -g).
 *
 * Addresses are `a.b.c.d:port` or `[v6]:port` (addrport_to_anyname with -n). `--exact` changes
 * only the counters of `--stats`/`--rate`, so `ipvsadm -Ln --exact` reads as `-Ln`; the
 * `--stats`, `--rate`, `--thresholds` and `--persistent-conn` listings print no forwarding method
 * (or no weight) and are refused with what to paste instead. The engine's own checks
 * (compileIpvs: modelled schedulers, address families) are placed at the line they are about.
 */
import type { Diagnostic } from '../../engine/index.ts';
import {
  compileIpvs,
  type IpvsForward,
  type IpvsProto,
  type IpvsSpec,
} from '../../engine/index.ts';
import {
  addrPort,
  addServer,
  addService,
  columns,
  err,
  newTable,
  notNumeric,
  notModelled,
  warn,
  type Service,
  type Table,
} from './ipvsadm-common.ts';
import { readRuleLine } from './ipvsadm-rules.ts';
import type { OwnHostErrorKey } from './messages.ts';
import { ownNote, said, type DumpCounts, type OwnNote } from './types.ts';

/** Where a service and its real servers are in the dump, by index in `spec.services`. */
export interface IpvsLines {
  readonly line: number;
  readonly schedulerColumn: number;
  readonly servers: readonly { readonly line: number; readonly column: number }[];
}

export interface ImportedIpvs {
  readonly spec: IpvsSpec;
  readonly lines: readonly IpvsLines[];
  readonly counts: DumpCounts;
  readonly diagnostics: readonly Diagnostic[];
  readonly unsupported: readonly OwnNote[];
}

const PROTO: Readonly<Record<string, IpvsProto>> = { TCP: 'tcp', UDP: 'udp', SCTP: 'sctp' };

const FWD: Readonly<Record<string, IpvsForward>> = {
  Masq: 'masq',
  Local: 'local',
  Tunnel: 'tunnel',
  Route: 'route',
};

/** The listing's flags after the scheduler: persistent N, mask M, pe NAME, ops, (sched flags). */
function listFlags(t: Table, svc: Service, words: string[], cols: number[], line: number): void {
  for (let k = 3; k < words.length; k++) {
    const w = words[k] as string;
    const col = cols[k] as number;
    if (w === 'persistent' && /^\d+$/.test(words[k + 1] ?? '')) {
      svc.persistent = Number(words[++k]);
    } else if ((w === 'mask' || w === 'pe') && words[k + 1] !== undefined) {
      k++;
      warn(t, line, col, notModelled(w, words[k] as string));
    } else if (w === 'ops' || w.startsWith('(')) {
      warn(t, line, col, notModelled(w, ''));
    } else {
      err(t, line, col, said('ipvsadm-Ln.flag', { flag: w }));
    }
  }
}

/** FWM services (a firewall mark instead of an address): read, left out, and said so. */
function fwm(t: Table, line: number, text: string): void {
  t.unsupported.push(ownNote(line, text, 'ipvsadm.fwm'));
}

/** The service the `->` lines belong to; `fwm`: a left-out FWM one; `stop`: not a -Ln listing. */
type Cur = Service | null | 'fwm' | 'stop';

const TITLE = /^Prot LocalAddress:Port\s*(.*)$/;
const SERVER_TITLE = /^->\s*RemoteAddress:Port\b/;

/** One line of `ipvsadm -Ln`. `cur` is the service the `->` lines belong to. */
function listLine(t: Table, raw: string, line: number, cur: { svc: Cur }): void {
  if (cur.svc === 'stop') return;
  const text = raw.trim();
  const { words, cols } = columns(raw);
  const first = words[0] as string;
  if (/^IP Virtual Server version \S+/.test(text) || SERVER_TITLE.test(text)) return;
  const title = TITLE.exec(text);
  if (title) {
    const rest = (title[1] as string).trim();
    if (rest === 'Scheduler Flags') return;
    // The rest of such a listing is counters: one error says it all.
    cur.svc = 'stop';
    err(t, line, 1, said('ipvsadm-Ln.counters', { columns: rest.split(/\s+/).join(', ') }));
    return;
  }
  if (first === 'FWM') {
    cur.svc = 'fwm';
    return fwm(t, line, text);
  }
  const proto = PROTO[first];
  if (proto) return listService(t, proto, words, cols, line, cur);
  if (first === '->') return listServer(t, words, cols, line, cur.svc);
  err(t, line, cols[0] as number, said('ipvsadm-Ln.line', { word: first }));
}

function listService(
  t: Table,
  proto: IpvsProto,
  words: string[],
  cols: number[],
  line: number,
  cur: { svc: Cur },
): void {
  cur.svc = null;
  const vip = addrPort(words[1] ?? '');
  if (!vip) return err(t, line, cols[1] ?? 1, notNumeric(words[1] ?? '', 'ipvsadm -Ln'));
  const scheduler = words[2];
  if (!scheduler) return err(t, line, cols[0] as number, said('ipvsadm-Ln.scheduler'));
  const svc: Service = {
    proto,
    ...vip,
    scheduler,
    persistent: null,
    line,
    schedulerColumn: cols[2] as number,
    servers: [],
  };
  listFlags(t, svc, words, cols, line);
  cur.svc = addService(t, svc, cols[1] as number);
}

function listServer(t: Table, words: string[], cols: number[], line: number, svc: Cur): void {
  if (svc === 'fwm' || svc === 'stop') return;
  const col = cols[0] as number;
  if (!svc) return err(t, line, col, said('ipvsadm-Ln.server-first'));
  const rs = addrPort(words[1] ?? '');
  if (!rs) return err(t, line, cols[1] ?? col, notNumeric(words[1] ?? '', 'ipvsadm -Ln'));
  const forward = FWD[words[2] ?? ''];
  if (!forward)
    return err(t, line, cols[2] ?? col, said('ipvsadm-Ln.forward', { value: words[2] ?? '' }));
  const weight = words[3] ?? '';
  if (!/^\d{1,5}$/.test(weight) || Number(weight) > 65535)
    return err(t, line, cols[3] ?? col, said('ipvsadm-Ln.weight', { value: weight }));
  if (words.length !== 6 || !words.slice(4).every((w) => /^\d+$/.test(w)))
    return err(t, line, cols[4] ?? col, said('ipvsadm-Ln.counts'));
  addServer(t, svc, { ...rs, weight: Number(weight), forward, line, column: cols[1] as number });
}

/** One line of `ipvsadm -S -n`, read by ipvsadm-rules.ts. */
function ruleLine(t: Table, raw: string, line: number): void {
  const r = readRuleLine(t, raw, line);
  if (!r || r.kind === 'skip') return;
  if (r.kind === 'fwm') return fwm(t, line, raw.trim());
  const key = `${r.proto}|${r.vip.address}|${r.vip.port}`;
  if (r.kind === 'service') {
    addService(
      t,
      {
        proto: r.proto,
        ...r.vip,
        scheduler: r.scheduler,
        persistent: r.persistent,
        line,
        schedulerColumn: r.schedulerColumn,
        servers: [],
      },
      r.vipColumn,
    );
    return;
  }
  const svc = t.services.get(key);
  if (!svc) return err(t, line, r.vipColumn, said('ipvsadm-S.server-first'));
  addServer(t, svc, { ...r.server, line, column: r.serverColumn });
}

/** Which of the two formats the first meaningful line is. */
function formatOf(lines: readonly string[]): 'list' | 'rules' {
  const first = lines.find((l) => l.trim() !== '' && !l.trim().startsWith('#'))?.trim() ?? '';
  return /^(ipvsadm\s+)?-[^>]/.test(first) ? 'rules' : 'list';
}

/** The engine's checks of the spec (schedulers, families), at the line they are about. */
function engineChecks(t: Table, spec: IpvsSpec, lines: readonly IpvsLines[]): void {
  for (const p of compileIpvs(spec).problems) {
    const m = /^ipvs\.services\[(\d+)\](?:\.realServers\[(\d+)\])?(?:\.(\w+))?/.exec(p.field ?? '');
    const at = m ? lines[Number(m[1])] : undefined;
    if (!m || !at) continue;
    const server = m[2] !== undefined ? at.servers[Number(m[2])] : undefined;
    const where = server ?? {
      line: at.line,
      column: m[3] === 'scheduler' ? at.schedulerColumn : 1,
    };
    const fix =
      m[3] === 'scheduler' ? ' (the lab cannot choose a real server for this service)' : '';
    // The engine's own sentence (it has no key), so no translation.
    const { line, column } = where;
    t.diagnostics.push({ severity: 'error', line, column, message: `${p.message}${fix}` });
  }
}

/** What is said of a real server of a method other than Masq. */
const METHOD_NOTE: Readonly<Record<Exclude<IpvsForward, 'masq'>, OwnHostErrorKey>> = {
  route: 'ipvsadm.method.route',
  tunnel: 'ipvsadm.method.tunnel',
  local: 'ipvsadm.method.local',
};

/** Real servers of a method the engine does not model, with their line. */
function notes(t: Table, services: readonly Service[], text: readonly string[]): void {
  for (const s of services)
    for (const r of s.servers)
      if (r.forward !== 'masq')
        t.unsupported.push(
          ownNote(r.line, (text[r.line - 1] ?? '').trim(), METHOD_NOTE[r.forward]),
        );
}

export function importIpvsadm(text: string): ImportedIpvs {
  const t = newTable();
  const all = text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''));
  const format = formatOf(all);
  const cur: { svc: Cur } = { svc: null };
  all.forEach((raw, n) => {
    if (raw.trim() === '' || raw.trim().startsWith('#')) return;
    if (format === 'list') listLine(t, raw, n + 1, cur);
    else ruleLine(t, raw, n + 1);
  });
  const services = [...t.services.values()];
  notes(t, services, all);
  const spec: IpvsSpec = {
    services: services.map((s) => ({
      proto: s.proto,
      address: s.address,
      port: s.port,
      scheduler: s.scheduler,
      ...(s.persistent !== null ? { persistent: s.persistent } : {}),
      realServers: s.servers.map((r) => ({
        address: r.address,
        port: r.port,
        weight: r.weight,
        forward: r.forward,
      })),
    })),
  };
  const lines = services.map((s) => ({
    line: s.line,
    schedulerColumn: s.schedulerColumn,
    servers: s.servers.map((r) => ({ line: r.line, column: r.column })),
  }));
  engineChecks(t, spec, lines);
  return {
    spec,
    lines,
    counts: {
      services: services.length,
      realServers: services.reduce((n, s) => n + s.servers.length, 0),
    },
    diagnostics: t.diagnostics.sort((a, b) => a.line - b.line),
    unsupported: t.unsupported.sort((a, b) => a.line - b.line),
  };
}
