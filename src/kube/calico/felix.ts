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

export function renderFelix(input: FelixInput): FelixOutput {
  const policies = ordered(input.calico.policies);
  const applying = (labels: Readonly<Record<string, string>>) =>
    policies.filter((p) => matches(p.selector, labels));
  const raw: FChain[] = [...staticRawChains()];
  const mangle: FChain[] = [...staticMangleChains()];
  const filter: FChain[] = [...staticFilterChains()];
  const nat: FChain[] = [...staticNatChains(input.ipPools.some((p) => p.natOutgoing))];
  const usedPolicies = new Set<string>();
  const usedGroups: PolicyGroup[] = [];
  const usedProfiles = new Set<string>();
  const note = (tiers: readonly Tier[]) => {
    for (const t of tiers)
      for (const g of [...t.ingress, ...t.egress]) {
        g.policies.forEach((p) => usedPolicies.add(p));
        if (g.policies.length > 1) usedGroups.push(g);
      }
  };
  const chain = (
    iface: string,
    tiers: readonly Tier[],
    profiles: readonly string[],
    direction: 'in' | 'out',
    prefix: string,
    failsafe: string | null,
    type: ChainType,
    allow: string,
    allowEncap = true,
  ) => {
    note(tiers);
    if (type === 'normal') profiles.forEach((p) => usedProfiles.add(p));
    return endpointChain({
      tiers,
      profiles,
      iface,
      direction,
      prefix,
      failsafe,
      type,
      allow,
      allowEncap,
    });
  };

  // Host endpoints.
  const heps = activeHostEndpoints(input);
  const untrackedIfaces: string[] = [];
  const preDnatIfaces: string[] = [];
  for (const h of heps) {
    const ps = applying(h.labels);
    const untracked = ps.filter((p) => p.doNotTrack);
    const preDnat = ps.filter((p) => p.preDNAT && !p.doNotTrack);
    const normal = ps.filter((p) => !p.preDNAT && !p.doNotTrack);
    const forward = normal.filter((p) => p.applyOnForward);
    const both = { in: true, out: true };
    const normalTiers = tierOf(normal, 'Deny', both);
    const forwardTiers = tierOf(forward, 'Deny', both);
    filter.push(
      chain(
        h.iface,
        normalTiers,
        h.profiles,
        'out',
        'cali-th-',
        'cali-failsafe-out',
        'normal',
        A.accept,
      ),
      chain(
        h.iface,
        normalTiers,
        h.profiles,
        'in',
        'cali-fh-',
        'cali-failsafe-in',
        'normal',
        A.accept,
      ),
      chain(h.iface, forwardTiers, h.profiles, 'out', 'cali-thfw-', null, 'forward', A.accept),
      chain(h.iface, forwardTiers, h.profiles, 'in', 'cali-fhfw-', null, 'forward', A.accept),
    );
    mangle.push(
      chain(
        h.iface,
        normalTiers,
        h.profiles,
        'out',
        'cali-th-',
        'cali-failsafe-out',
        'normal',
        A.ret,
      ),
    );
    // Untracked and pre-DNAT tiers pass to the normal tiers by default.
    const preTiers = tierOf(preDnat, 'Pass', { in: true, out: false });
    if (preTiers.length) {
      preDnatIfaces.push(h.iface);
      mangle.push(
        chain(h.iface, preTiers, [], 'in', 'cali-fh-', 'cali-failsafe-in', 'preDNAT', A.accept),
      );
    }
    const rawTiers = tierOf(untracked, 'Pass', both);
    // endpoint_mgr: doNotTrack policy on a `*` host endpoint is not supported; Felix ignores it.
    if (rawTiers.length && h.iface !== ALL_INTERFACES) {
      untrackedIfaces.push(h.iface);
      raw.push(
        chain(h.iface, rawTiers, [], 'out', 'cali-th-', 'cali-failsafe-out', 'untracked', A.accept),
        chain(h.iface, rawTiers, [], 'in', 'cali-fh-', 'cali-failsafe-in', 'untracked', A.accept),
      );
    }
  }
  const named = (list: readonly string[]) => list.filter((i) => i !== ALL_INTERFACES);
  const dflt = (list: readonly string[]) => (list.includes(ALL_INTERFACES) ? ALL_INTERFACES : null);
  const hepIfaces = heps.map((h) => h.iface);
  raw.push(
    ...hostDispatch(
      untrackedIfaces,
      null,
      {
        from: ['cali-from-host-endpoint', 'cali-fh-'],
        to: ['cali-to-host-endpoint', 'cali-th-'],
      },
      false,
    ),
  );
  filter.push(
    ...hostDispatch(
      named(hepIfaces),
      dflt(hepIfaces),
      {
        from: ['cali-from-host-endpoint', 'cali-fh-'],
        to: ['cali-to-host-endpoint', 'cali-th-'],
      },
      true,
    ),
    ...hostDispatch(
      named(hepIfaces),
      dflt(hepIfaces),
      {
        from: ['cali-from-hep-forward', 'cali-fhfw-'],
        to: ['cali-to-hep-forward', 'cali-thfw-'],
      },
      true,
    ),
  );
  mangle.push(
    ...hostDispatch(
      named(preDnatIfaces),
      dflt(preDnatIfaces),
      { from: ['cali-from-host-endpoint', 'cali-fh-'] },
      false,
    ),
    ...hostDispatch(
      named(hepIfaces),
      dflt(hepIfaces),
      { to: ['cali-to-host-endpoint', 'cali-th-'] },
      false,
    ),
  );

  // Workload endpoints: only normal policies apply to them.
  const unknown: FRule[] = [{ action: A.drop, comment: ['Unknown interface'] }];
  for (const w of input.node.workloads) {
    const ps = applying(workloadLabels(w)).filter((p) => !p.preDNAT && !p.doNotTrack);
    const tiers = tierOf(ps, 'Deny', { in: true, out: true });
    const profiles = [`kns.${w.namespace}`, `ksa.${w.namespace}.${w.serviceAccount}`];
    filter.push(
      chain(w.iface, tiers, profiles, 'in', 'cali-tw-', null, 'normal', A.accept),
      chain(w.iface, tiers, profiles, 'out', 'cali-fw-', null, 'normal', A.accept, false),
    );
  }
  const wl = input.node.workloads.map((w) => w.iface);
  filter.push(
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

  // Policy, group and profile chains, offered to every table (policy_mgr.go); only those a
  // table reaches are programmed.
  const policyChains: FChain[] = [];
  for (const p of policies) {
    if (!usedPolicies.has(p.name)) continue;
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
  policyChains.push(...usedGroups.map(groupChain));
  for (const t of [raw, mangle, filter]) t.push(...policyChains);
  // Profiles: both directions in filter, the outbound one in mangle too (its cali-th-* chains
  // use it), as policy_mgr.go's profile update does.
  for (const name of [...usedProfiles].sort()) {
    const pr = profileRules(name);
    if (!pr) continue;
    const outbound = {
      name: profileChainName('out', name),
      rules: rulesToIptables(pr.egress, `Profile ${name} egress`),
    };
    filter.push(
      {
        name: profileChainName('in', name),
        rules: rulesToIptables(pr.ingress, `Profile ${name} ingress`),
      },
      outbound,
    );
    mangle.push(outbound);
  }

  const jump = (c: string): FRule => ({ action: A.jump(c) });
  const tables: TableOut[] = [
    {
      name: 'raw',
      chains: raw,
      inserts: { PREROUTING: [jump('cali-PREROUTING')], OUTPUT: [jump('cali-OUTPUT')] },
      appends: {},
    },
    {
      name: 'mangle',
      chains: mangle,
      inserts: { PREROUTING: [jump('cali-PREROUTING')], POSTROUTING: [jump('cali-POSTROUTING')] },
      appends: {},
    },
    {
      name: 'filter',
      chains: filter,
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
  return { rules: text, ipsets: ipsetsFor(text, input, policies) };
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
