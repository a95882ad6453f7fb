/**
 * The host built from the dumps: each dump read by its importer (its kind chosen by the user or
 * detected), one netfilter dump of each kind and one IPVS table, addresses and routes merged across dumps (`ip -j
 * addr` and `ip -j -6 addr` together), and what no dump gives taken from the form.
 */
import type { Diagnostic } from '../../engine/index.ts';
import type {
  HostSpec,
  InterfaceSpec,
  IpsetSpec,
  IpvsSpec,
  ParseResult,
  RouteSpec,
} from '../../engine/index.ts';
import { detectDump } from './detect.ts';
import { addressesField, gatewayField, listenersField } from './extras.ts';
import { importAddr, importRoute } from './ip-json.ts';
import { importIpset } from './ipset-save.ts';
import { importIpvsadm, type IpvsLines } from './ipvsadm.ts';
import { readNft, readXtables } from './rules-dump.ts';
import type {
  DumpKind,
  DumpReport,
  FieldProblem,
  OwnDump,
  OwnExtras,
  OwnNote,
  Said,
} from './types.ts';
import { OWN_HOST, formError, said } from './types.ts';

/** Where each part of the spec came from, to place the engine's problems in the dumps. */
export interface Origins {
  readonly rules?: string;
  readonly rules6?: string;
  readonly nftables?: string;
  readonly ipsets: readonly { dump: string; line: number }[];
  /** The ipvsadm dump, and where each virtual service and real server is in it. */
  readonly ipvs?: { readonly dump: string; readonly lines: readonly IpvsLines[] };
}

/** What the dumps of the host's state (addresses, routes, sets, IPVS) add up to. */
interface State {
  readonly ifaces: Map<string, string[]>;
  readonly kinds: Map<string, InterfaceSpec['kind']>;
  readonly routes: RouteSpec[];
  readonly ipsets: IpsetSpec[];
  readonly ipsetLines: { dump: string; line: number }[];
  sawAddr: boolean;
  sawRoute: boolean;
  ipvs: { dump: string; spec: IpvsSpec; lines: readonly IpvsLines[] } | null;
}

type Report = (
  counts: DumpReport['counts'],
  diagnostics: readonly Diagnostic[],
  unsupported?: readonly OwnNote[],
  ignored?: readonly OwnNote[],
) => void;

const hasError = (ds: readonly Diagnostic[]) => ds.some((x) => x.severity === 'error');

/** A dump of addresses, routes, sets or the IPVS table, read into the host's state. */
function readState(kind: DumpKind, d: OwnDump, acc: State, report: Report): void {
  if (kind === 'ip-addr') {
    const r = importAddr(d.text);
    report(r.counts, r.diagnostics, [], r.ignored);
    if (r.diagnostics.length) return;
    acc.sawAddr = true;
    mergeInterfaces(acc.ifaces, acc.kinds, r.items);
  } else if (kind === 'ip-route') {
    const r = importRoute(d.text);
    report(r.counts, r.diagnostics, [], r.ignored);
    if (r.diagnostics.length) return;
    acc.sawRoute = true;
    acc.routes.push(...r.items);
  } else if (kind === 'ipvsadm') {
    if (acc.ipvs)
      return report({}, [
        { severity: 'error', line: 1, column: 1, ...said('dump.second-ipvsadm') },
      ]);
    const r = importIpvsadm(d.text);
    report(r.counts, r.diagnostics, r.unsupported);
    if (!hasError(r.diagnostics)) acc.ipvs = { dump: d.id, spec: r.spec, lines: r.lines };
  } else {
    const r = importIpset(d.text);
    report(r.counts, r.diagnostics, r.unsupported);
    if (r.diagnostics.length) return;
    acc.ipsets.push(...r.sets);
    acc.ipsetLines.push(...r.lines.map((line) => ({ dump: d.id, line })));
  }
}

export interface BuiltHost {
  readonly spec: HostSpec;
  readonly reports: DumpReport[];
  readonly problems: FieldProblem[];
  readonly missing: { readonly addresses: boolean; readonly routes: boolean };
  readonly origins: Origins;
  /** The engine's parse of each iptables dump, so buildNetwork does not parse it again. */
  readonly parsed: Map<string, ParseResult>;
}

const NETFILTER: ReadonlySet<DumpKind> = new Set(['iptables', 'ip6tables', 'nft']);

function mergeInterfaces(
  into: Map<string, string[]>,
  kinds: Map<string, InterfaceSpec['kind']>,
  list: readonly InterfaceSpec[],
): void {
  for (const i of list) {
    const addrs = into.get(i.name) ?? [];
    for (const a of i.addresses) if (!addrs.includes(a)) addrs.push(a);
    into.set(i.name, addrs);
    if (i.kind) kinds.set(i.name, i.kind);
  }
}

/** lo's own addresses are the engine's already; only extra ones (a VIP on lo) are kept. */
function loExtras(addrs: readonly string[]): string[] {
  return addrs.filter((a) => !/^(127\.0\.0\.1\/8|::1\/128)( scope host)?$/.test(a));
}

/** iptables-nft's own tables (ip/ip6 filter, nat, ...): `nft list ruleset` of such a node prints them. */
const XT_TABLES = /^table (ip|ip6) (filter|nat|mangle|raw|security) \{/gm;

/**
 * On an iptables-nft node `nft list ruleset` prints the tables iptables-save prints too: given
 * both, the host would run those rules twice. Said on the nft dump, at each such table.
 */
function warnTwice(
  reports: DumpReport[],
  texts: Partial<Record<string, { id: string; text: string }>>,
): void {
  const nft = texts.nftables;
  if (!nft || (!texts.rules && !texts.rules6)) return;
  const i = reports.findIndex((r) => r.id === nft.id);
  const r = reports[i];
  if (!r) return;
  const more: Diagnostic[] = [];
  for (const m of nft.text.matchAll(XT_TABLES)) {
    if ((m[1] === 'ip' ? texts.rules : texts.rules6) === undefined) continue;
    more.push({
      severity: 'warning',
      line: nft.text.slice(0, m.index).split('\n').length,
      column: 1,
      ...said('dump.twice', {
        family: m[1] as string,
        table: m[2] as string,
        tool: m[1] === 'ip' ? 'iptables' : 'ip6tables',
      }),
    });
  }
  if (more.length) reports[i] = { ...r, diagnostics: [...r.diagnostics, ...more] };
}

/** The netfilter dumps a host has (one of each), by the spec field they fill. */
type NetfilterTexts = Partial<
  Record<'rules' | 'rules6' | 'nftables', { id: string; text: string }>
>;

/** `tracing`: a packet is to be traced, so a host without addresses is a problem to say. */
export function buildOwnHost(
  dumps: readonly OwnDump[],
  extras: OwnExtras,
  tracing = true,
): BuiltHost {
  const reports: DumpReport[] = [];
  const problems: FieldProblem[] = [];
  const acc: State = {
    ifaces: new Map(),
    kinds: new Map(),
    routes: [],
    ipsets: [],
    ipsetLines: [],
    sawAddr: false,
    sawRoute: false,
    ipvs: null,
  };
  const { ifaces, kinds, routes, ipsets, ipsetLines } = acc;
  const texts: NetfilterTexts = {};
  const parsed = new Map<string, ParseResult>();
  for (const d of dumps) readDump(d, acc, { reports, texts, parsed });
  warnTwice(reports, texts);
  if (!acc.sawAddr) {
    const addrs = addressesField(extras.addresses, problems);
    if (addrs.length) ifaces.set('eth0', addrs);
    else if (!problems.length && tracing)
      problems.push(formError('addresses', said('form.no-addresses')));
  }
  if (!acc.sawRoute) routes.push(...gatewayField(extras.gateway, problems));
  const interfaces: InterfaceSpec[] = [...ifaces].map(([name, addrs]) =>
    name === 'lo'
      ? { name, addresses: loExtras(addrs) }
      : { name, addresses: addrs, kind: kinds.get(name) ?? 'ether' },
  );
  const spec: HostSpec = {
    name: OWN_HOST,
    role: 'node',
    interfaces,
    routes,
    listeners: listenersField(extras.listeners, problems),
    ipsets,
    sysctls: { ipForward: extras.ipForward, routeLocalnet: extras.routeLocalnet },
    ...(texts.rules ? { rules: texts.rules.text } : {}),
    ...(texts.rules6 ? { rules6: texts.rules6.text } : {}),
    ...(texts.nftables ? { nftables: texts.nftables.text } : {}),
    ...(acc.ipvs ? { ipvs: acc.ipvs.spec } : {}),
  };
  return {
    spec,
    reports,
    problems,
    missing: { addresses: !acc.sawAddr, routes: !acc.sawRoute },
    origins: {
      ...(texts.rules ? { rules: texts.rules.id } : {}),
      ...(texts.rules6 ? { rules6: texts.rules6.id } : {}),
      ...(texts.nftables ? { nftables: texts.nftables.id } : {}),
      ipsets: ipsetLines,
      ...(acc.ipvs ? { ipvs: { dump: acc.ipvs.dump, lines: acc.ipvs.lines } } : {}),
    },
    parsed,
  };
}

/** One dump: its report, and what it gives the host (netfilter text, or addresses, routes...). */
function readDump(
  d: OwnDump,
  acc: State,
  into: { reports: DumpReport[]; texts: NetfilterTexts; parsed: Map<string, ParseResult> },
): void {
  const { texts } = into;
  const detected = detectDump(d.text);
  const kind = d.kind === 'auto' ? detected : d.kind;
  const base = { id: d.id, name: d.name, kind, detected };
  const report = (
    counts: DumpReport['counts'],
    diagnostics: readonly Diagnostic[],
    unsupported: readonly OwnNote[] = [],
    ignored: readonly OwnNote[] = [],
  ): void => {
    into.reports.push({ ...base, counts, diagnostics, unsupported, ignored });
  };
  const error = (message: Said) =>
    report({}, [{ severity: 'error', line: 1, column: 1, ...message }]);
  if (kind === null) return error(said('dump.unknown'));
  if (!NETFILTER.has(kind)) return readState(kind, d, acc, report);
  const slot = kind === 'iptables' ? 'rules' : kind === 'ip6tables' ? 'rules6' : 'nftables';
  if (texts[slot]) return error(said('dump.second', { kind }));
  const r = kind === 'nft' ? readNft(d.text) : readXtables(d.text, kind === 'iptables' ? 4 : 6);
  report(r.counts, r.diagnostics, r.unsupported);
  if (r.diagnostics.some((x) => x.severity === 'error')) return;
  texts[slot] = { id: d.id, text: d.text };
  if (kind !== 'nft') into.parsed.set(d.text, r.parsed as ParseResult);
}
