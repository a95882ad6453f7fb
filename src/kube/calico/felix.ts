/**
 * What Felix programs on one node: the static chains, the host endpoint and workload endpoint
 * chains with their dispatch chains, the policy and profile chains, and the jumps from the
 * built-in chains (felix/dataplane/linux/int_dataplane.go setUpIptablesNormal: inserted at the
 * top, ChainInsertMode insert; nat POSTROUTING and two FORWARD rules appended). Which policy goes
 * where follows felix/calc/event_sequencer.go tierInfoToProtoTierInfo (doNotTrack: untracked
 * tiers in raw; preDNAT: pre-DNAT tiers in mangle; otherwise the normal tiers, and with
 * applyOnForward the forward tiers too) and felix/dataplane/linux/endpoint_mgr.go
 * updateHostEndpoints. Felix's Table programs only chains reachable from the built-in chains, so
 * the others are left out here too. IPv4 only.
 */
import { A, renderChain, type FChain, type FRule } from './iptables.ts';
import {
  ALL_INTERFACES,
  endpointChain,
  type EndpointChainSpec,
  groupChain,
  hostDispatch,
  dispatchTree,
  endpointChainName,
  type ChainType,
  type PolicyGroup,
  type Tier,
} from './endpoints.ts';
import { policyChainName, profileChainName, rulesToIptables, selectorSetName } from './policy.ts';
import { canonical, matches } from './selector.ts';
import {
  FORWARD_APPENDS,
  SET,
  staticFilterChains,
  staticMangleChains,
  staticNatChains,
  staticRawChains,
} from './static.ts';
import type { CalicoModel, CalicoRule, GlobalNetworkPolicyModel } from './types.ts';
import { M } from './iptables.ts';

export interface FelixWorkload {
  readonly iface: string;
  readonly ip: string;
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface FelixNode {
  readonly name: string;
  /** The node's addresses (the this-host IP set). */
  readonly ips: readonly string[];
  /** Host interfaces (not workload veths) with their addresses. */
  readonly interfaces: readonly { readonly name: string; readonly ips: readonly string[] }[];
  readonly workloads: readonly FelixWorkload[];
}

export interface FelixInput {
  readonly node: FelixNode;
  readonly calico: CalicoModel;
  /** Every workload of the cluster (selector IP sets list endpoints on every node). */
  readonly allWorkloads: readonly FelixWorkload[];
  readonly ipPools: readonly { readonly cidr: string; readonly natOutgoing: boolean }[];
}

export interface FelixIpset {
  readonly name: string;
  readonly type: 'hash:net' | 'hash:ip';
  readonly entries: readonly string[];
}

export interface FelixOutput {
  /** Felix's iptables-restore input for raw, mangle, filter and nat. */
  readonly rules: string;
  readonly ipsets: readonly FelixIpset[];
}

/** The labels a workload endpoint carries for selectors (felix/calc, libcalico-go k8s conversion). */
export function workloadLabels(w: FelixWorkload): Record<string, string> {
  return {
    ...w.labels,
    'projectcalico.org/namespace': w.namespace,
    'projectcalico.org/orchestrator': 'k8s',
    'projectcalico.org/serviceaccount': w.serviceAccount,
  };
}

/** Policies in the default tier's order: by order (none last), then name. */
function ordered(ps: readonly GlobalNetworkPolicyModel[]): GlobalNetworkPolicyModel[] {
  return [...ps].sort(
    (a, b) =>
      (a.order ?? Infinity) - (b.order ?? Infinity) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

function groups(ps: readonly GlobalNetworkPolicyModel[], dir: 'in' | 'out'): PolicyGroup[] {
  const out: { direction: 'in' | 'out'; selector: string; policies: string[] }[] = [];
  for (const p of ps) {
    const sel = canonical(p.selector);
    const last = out[out.length - 1];
    if (last && last.selector === sel) last.policies.push(p.name);
    else out.push({ direction: dir, selector: sel, policies: [p.name] });
  }
  return out;
}

/** One default tier built from the policies that apply, or none when none does. */
function tierOf(
  ps: readonly GlobalNetworkPolicyModel[],
  defaultAction: 'Deny' | 'Pass',
  dirs: { in: boolean; out: boolean },
): Tier[] {
  if (!ps.length) return [];
  const ing = dirs.in ? ps.filter((p) => p.types.includes('Ingress')) : [];
  const eg = dirs.out ? ps.filter((p) => p.types.includes('Egress')) : [];
  if (!ing.length && !eg.length) return [];
  return [
    { name: 'default', defaultAction, ingress: groups(ing, 'in'), egress: groups(eg, 'out') },
  ];
}

/** Profiles the lab knows: Kubernetes namespaces allow everything, service accounts add labels. */
function profileRules(name: string): { ingress: CalicoRule[]; egress: CalicoRule[] } | null {
  const all: CalicoRule = {
    action: 'Allow',
    protocol: null,
    notProtocol: null,
    source: { nets: [], notNets: [], selector: null, notSelector: null, ports: [], notPorts: [] },
    destination: {
      nets: [],
      notNets: [],
      selector: null,
      notSelector: null,
      ports: [],
      notPorts: [],
    },
  };
  if (name.startsWith('kns.') || name === 'projectcalico-default-allow')
    return { ingress: [all], egress: [all] };
  if (name.startsWith('ksa.')) return { ingress: [], egress: [] };
  return null;
}

/** The profiles the lab can render (others are refused by the manifest reader). */
export const KNOWN_PROFILE = (name: string): boolean => profileRules(name) !== null;

interface HepActive {
  readonly iface: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly profiles: readonly string[];
}

function activeHostEndpoints(input: FelixInput): HepActive[] {
  const mine = input.calico.hostEndpoints
    .filter((h) => h.node === input.node.name)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const out = new Map<string, HepActive>();
  for (const h of mine) {
    let iface: string | null = null;
    if (h.interfaceName === '*') iface = ALL_INTERFACES;
    else if (h.interfaceName) {
      if (input.node.interfaces.some((i) => i.name === h.interfaceName)) iface = h.interfaceName;
    } else
      iface =
        input.node.interfaces.find((i) => i.ips.some((ip) => h.expectedIPs.includes(ip)))?.name ??
        null;
    if (iface && !out.has(iface)) out.set(iface, { iface, labels: h.labels, profiles: h.profiles });
  }
  return [...out.values()];
}

/** The chains of each table so far, and which policies, groups and profiles they jump to. */
interface Acc {
  readonly input: FelixInput;
  readonly policies: readonly GlobalNetworkPolicyModel[];
  readonly raw: FChain[];
  readonly mangle: FChain[];
  readonly filter: FChain[];
  readonly usedPolicies: Set<string>;
  readonly usedGroups: PolicyGroup[];
  readonly usedProfiles: Set<string>;
}

/** An endpoint chain (endpointIptablesChain), noting the policies and profiles it uses. */
function chainOf(acc: Acc, spec: EndpointChainSpec): FChain {
  for (const t of spec.tiers)
    for (const g of [...t.ingress, ...t.egress]) {
      g.policies.forEach((p) => acc.usedPolicies.add(p));
      if (g.policies.length > 1) acc.usedGroups.push(g);
    }
  if (spec.type === 'normal') spec.profiles.forEach((p) => acc.usedProfiles.add(p));
  return endpointChain(spec);
}

const applying = (acc: Acc, labels: Readonly<Record<string, string>>) =>
  acc.policies.filter((p) => matches(p.selector, labels));

/**
 * Host endpoints (endpoint_mgr.go updateHostEndpoints): filter and mangle chains for normal and
 * forward tiers, mangle ingress chains where pre-DNAT policy applies, raw chains where untracked
 * policy does, and the dispatch chains of each table.
 */
// eslint-disable-next-line max-lines-per-function -- transcribes Felix's host-endpoint chain rendering in its order, to check side by side
function hostEndpointChains(acc: Acc): void {
  const heps = activeHostEndpoints(acc.input);
  const untrackedIfaces: string[] = [];
  const preDnatIfaces: string[] = [];
  const both = { in: true, out: true };
  for (const h of heps) {
    const ps = applying(acc, h.labels);
    const normal = ps.filter((p) => !p.preDNAT && !p.doNotTrack);
    const normalTiers = tierOf(normal, 'Deny', both);
    const forwardTiers = tierOf(
      normal.filter((p) => p.applyOnForward),
      'Deny',
      both,
    );
    const c = (
      tiers: readonly Tier[],
      direction: 'in' | 'out',
      prefix: string,
      type: ChainType,
      allow: string,
    ) =>
      chainOf(acc, {
        tiers,
        profiles: type === 'normal' || type === 'forward' ? h.profiles : [],
        iface: h.iface,
        direction,
        prefix,
        failsafe:
          type === 'forward' ? null : direction === 'in' ? 'cali-failsafe-in' : 'cali-failsafe-out',
        type,
        allow,
        allowEncap: true,
      });
    acc.filter.push(
      c(normalTiers, 'out', 'cali-th-', 'normal', A.accept),
      c(normalTiers, 'in', 'cali-fh-', 'normal', A.accept),
      c(forwardTiers, 'out', 'cali-thfw-', 'forward', A.accept),
      c(forwardTiers, 'in', 'cali-fhfw-', 'forward', A.accept),
    );
    acc.mangle.push(c(normalTiers, 'out', 'cali-th-', 'normal', A.ret));
    // Untracked and pre-DNAT tiers pass to the normal tiers by default.
    const preTiers = tierOf(
      ps.filter((p) => p.preDNAT && !p.doNotTrack),
      'Pass',
      { in: true, out: false },
    );
    if (preTiers.length) {
      preDnatIfaces.push(h.iface);
      acc.mangle.push(c(preTiers, 'in', 'cali-fh-', 'preDNAT', A.accept));
    }
    const rawTiers = tierOf(
      ps.filter((p) => p.doNotTrack),
      'Pass',
      both,
    );
    // endpoint_mgr: doNotTrack policy on a `*` host endpoint is not supported; Felix ignores it.
    if (rawTiers.length && h.iface !== ALL_INTERFACES) {
      untrackedIfaces.push(h.iface);
      acc.raw.push(
        c(rawTiers, 'out', 'cali-th-', 'untracked', A.accept),
        c(rawTiers, 'in', 'cali-fh-', 'untracked', A.accept),
      );
    }
  }
  const named = (list: readonly string[]) => list.filter((i) => i !== ALL_INTERFACES);
  const dflt = (list: readonly string[]) => (list.includes(ALL_INTERFACES) ? ALL_INTERFACES : null);
  const all = heps.map((h) => h.iface);
  const fromTo = {
    from: ['cali-from-host-endpoint', 'cali-fh-'] as [string, string],
    to: ['cali-to-host-endpoint', 'cali-th-'] as [string, string],
  };
  acc.raw.push(...hostDispatch(untrackedIfaces, null, fromTo, false));
  acc.filter.push(
    ...hostDispatch(named(all), dflt(all), fromTo, true),
    ...hostDispatch(
      named(all),
      dflt(all),
      { from: ['cali-from-hep-forward', 'cali-fhfw-'], to: ['cali-to-hep-forward', 'cali-thfw-'] },
      true,
    ),
  );
  acc.mangle.push(
    ...hostDispatch(named(preDnatIfaces), dflt(preDnatIfaces), { from: fromTo.from }, false),
    ...hostDispatch(named(all), dflt(all), { to: fromTo.to }, false),
  );
}

/** Workload endpoints: tw/fw chains (only normal policies apply to them) and their dispatch. */
function workloadChains(acc: Acc): void {
  for (const w of acc.input.node.workloads) {
    const ps = applying(acc, workloadLabels(w)).filter((p) => !p.preDNAT && !p.doNotTrack);
    const tiers = tierOf(ps, 'Deny', { in: true, out: true });
    const profiles = [`kns.${w.namespace}`, `ksa.${w.namespace}.${w.serviceAccount}`];
    const base = { tiers, profiles, iface: w.iface, failsafe: null, type: 'normal' as const };
    acc.filter.push(
      chainOf(acc, {
        ...base,
        direction: 'in',
        prefix: 'cali-tw-',
        allow: A.accept,
        allowEncap: true,
      }),
      // AllowVXLANPacketsFromWorkloads and AllowIPIPPacketsFromWorkloads default to false.
      chainOf(acc, {
        ...base,
        direction: 'out',
        prefix: 'cali-fw-',
        allow: A.accept,
        allowEncap: false,
      }),
    );
  }
  const wl = acc.input.node.workloads.map((w) => w.iface);
  const unknown: FRule[] = [{ action: A.drop, comment: ['Unknown interface'] }];
  acc.filter.push(
    ...dispatchTree(
      'cali-from-wl-dispatch',
      wl,
      M.inIf,
      (i) => A.goto(endpointChainName('cali-fw-', i)),
      unknown,
    ),
    ...dispatchTree(
      'cali-to-wl-dispatch',
      wl,
      M.outIf,
      (i) => A.goto(endpointChainName('cali-tw-', i)),
      unknown,
    ),
  );
}

/**
 * Policy and group chains, offered to every table (policy_mgr.go: only those a table reaches
 * are programmed); profiles in filter, their outbound chain in mangle too (its cali-th-* use it).
 */
function policyAndProfileChains(acc: Acc): void {
  const policyChains: FChain[] = [];
  for (const p of acc.policies) {
    if (!acc.usedPolicies.has(p.name)) continue;
    policyChains.push(
      {
        name: policyChainName('in', p.name),
        rules: rulesToIptables(p.ingress, `GlobalNetworkPolicy ${p.name} ingress`),
      },
      {
        name: policyChainName('out', p.name),
        rules: rulesToIptables(p.egress, `GlobalNetworkPolicy ${p.name} egress`),
      },
    );
  }
  policyChains.push(...acc.usedGroups.map(groupChain));
  for (const t of [acc.raw, acc.mangle, acc.filter]) t.push(...policyChains);
  for (const name of [...acc.usedProfiles].sort()) {
    const pr = profileRules(name);
    if (!pr) continue;
    const outbound = {
      name: profileChainName('out', name),
      rules: rulesToIptables(pr.egress, `Profile ${name} egress`),
    };
    acc.filter.push(
      {
        name: profileChainName('in', name),
        rules: rulesToIptables(pr.ingress, `Profile ${name} ingress`),
      },
      outbound,
    );
    acc.mangle.push(outbound);
  }
}

export function renderFelix(input: FelixInput): FelixOutput {
  const acc: Acc = {
    input,
    policies: ordered(input.calico.policies),
    raw: [...staticRawChains()],
    mangle: [...staticMangleChains()],
    filter: [...staticFilterChains()],
    usedPolicies: new Set(),
    usedGroups: [],
    usedProfiles: new Set(),
  };
  hostEndpointChains(acc);
  workloadChains(acc);
  policyAndProfileChains(acc);
  const nat = staticNatChains(input.ipPools.some((p) => p.natOutgoing));
  const jump = (c: string): FRule => ({ action: A.jump(c) });
  const tables: TableOut[] = [
    {
      name: 'raw',
      chains: acc.raw,
      inserts: { PREROUTING: [jump('cali-PREROUTING')], OUTPUT: [jump('cali-OUTPUT')] },
      appends: {},
    },
    {
      name: 'mangle',
      chains: acc.mangle,
      inserts: { PREROUTING: [jump('cali-PREROUTING')], POSTROUTING: [jump('cali-POSTROUTING')] },
      appends: {},
    },
    {
      name: 'filter',
      chains: acc.filter,
      inserts: {
        INPUT: [jump('cali-INPUT')],
        FORWARD: [jump('cali-FORWARD')],
        OUTPUT: [jump('cali-OUTPUT')],
      },
      appends: { FORWARD: FORWARD_APPENDS },
    },
    {
      name: 'nat',
      chains: nat,
      inserts: { PREROUTING: [jump('cali-PREROUTING')], OUTPUT: [jump('cali-OUTPUT')] },
      appends: { POSTROUTING: [jump('cali-POSTROUTING')] },
    },
  ];
  const text = tables.map(renderTable).join('');
  return { rules: text, ipsets: ipsetsFor(text, input, acc.policies) };
}

interface TableOut {
  readonly name: string;
  readonly chains: readonly FChain[];
  readonly inserts: Readonly<Record<string, readonly FRule[]>>;
  readonly appends: Readonly<Record<string, readonly FRule[]>>;
}

const BUILTIN: Readonly<Record<string, readonly string[]>> = {
  raw: ['PREROUTING', 'OUTPUT'],
  mangle: ['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING'],
  filter: ['INPUT', 'FORWARD', 'OUTPUT'],
  nat: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'],
};

const targetsOf = (rules: readonly FRule[]) =>
  rules.flatMap((r) => {
    const m = /^--(?:jump|goto) (\S+)/.exec(r.action ?? '');
    return m ? [m[1] as string] : [];
  });

/** The chains reachable from the built-in chains' rules, in the order first declared. */
function reachable(t: TableOut): FChain[] {
  const byName = new Map<string, FChain>();
  for (const c of t.chains) if (!byName.has(c.name)) byName.set(c.name, c);
  const seen = new Set<string>();
  const todo = [...Object.values(t.inserts), ...Object.values(t.appends)].flatMap(targetsOf);
  while (todo.length) {
    const n = todo.pop() as string;
    const c = byName.get(n);
    if (!c || seen.has(n)) continue;
    seen.add(n);
    todo.push(...targetsOf(c.rules));
  }
  return [...byName.values()].filter((c) => seen.has(c.name));
}

/**
 * One table as Felix's restore input would leave it: its chains (`:name - -` forward references,
 * then their rules), the inserted jumps (`-I`, written in reverse so they end up in order) and the
 * appended rules. Built-in chains are declared so that a table kube-proxy does not write exists.
 */
function renderTable(t: TableOut): string {
  const chains = reachable(t);
  const lines = [`*${t.name}`];
  for (const b of BUILTIN[t.name] ?? []) lines.push(`:${b} ACCEPT [0:0]`);
  for (const c of chains) lines.push(`:${c.name} - -`);
  for (const c of chains) lines.push(...renderChain(c));
  for (const [name, rules] of Object.entries(t.inserts))
    lines.push(...renderChain({ name, rules }, '-I').reverse());
  for (const [name, rules] of Object.entries(t.appends))
    lines.push(...renderChain({ name, rules }, '-A', `${name}*appends*`));
  lines.push('COMMIT');
  return `${lines.join('\n')}\n`;
}

function ipsetsFor(
  text: string,
  input: FelixInput,
  policies: readonly GlobalNetworkPolicyModel[],
): FelixIpset[] {
  const used = new Set([...text.matchAll(/--match-set (\S+)/g)].map((m) => m[1] as string));
  const pools = input.ipPools.map((p) => p.cidr);
  const out: FelixIpset[] = [
    { name: SET.networkPools, type: 'hash:net', entries: pools },
    {
      name: SET.masqPools,
      type: 'hash:net',
      entries: input.ipPools.filter((p) => p.natOutgoing).map((p) => p.cidr),
    },
    { name: SET.thisHost, type: 'hash:ip', entries: [...input.node.ips] },
    { name: SET.dscp, type: 'hash:net', entries: [] },
  ];
  // Selector IP sets: the addresses of every endpoint the selector matches, host endpoints'
  // expectedIPs included.
  const endpoints = [
    ...input.allWorkloads.map((w) => ({ labels: workloadLabels(w), ips: [w.ip] })),
    ...input.calico.hostEndpoints.map((h) => ({ labels: h.labels, ips: h.expectedIPs })),
  ];
  for (const p of policies)
    for (const r of [...p.ingress, ...p.egress])
      for (const sel of [
        r.source.selector,
        r.source.notSelector,
        r.destination.selector,
        r.destination.notSelector,
      ]) {
        if (!sel) continue;
        const name = selectorSetName(sel);
        if (out.some((s) => s.name === name)) continue;
        const entries = endpoints
          .filter((e) => matches(sel, e.labels))
          .flatMap((e) => e.ips.filter((ip) => !ip.includes(':')).map((ip) => `${ip}/32`));
        out.push({ name, type: 'hash:net', entries: [...new Set(entries)].sort() });
      }
  return out.filter((s) => used.has(s.name));
}
