/**
 * Endpoint chains and the dispatch chains that pick them by interface, transcribed from
 * felix/rules/endpoints.go (endpointIptablesChain, PolicyGroupToIptablesChains, PolicyGroup) and
 * felix/rules/dispatch.go (hostDispatchChains, interfaceNameDispatchChains,
 * buildSingleDispatchChainTree), projectcalico/calico 87c15906f20c4ca1fda55af92295e7678b0cc0b2.
 */
import { sha3_224 } from '@noble/hashes/sha3.js';
import { b64url, lengthLimitedId } from './hash.ts';
import { A, M, type FChain, type FRule } from './iptables.ts';
import { MARKS } from './marks.ts';
import { policyChainName, profileChainName } from './policy.ts';

/** Consecutive policies of a tier with the same selector (endpointManager.groupPolicies). */
export interface PolicyGroup {
  readonly direction: 'in' | 'out';
  readonly selector: string;
  readonly policies: readonly string[];
}

export interface Tier {
  readonly name: string;
  readonly defaultAction: 'Deny' | 'Pass';
  readonly ingress: readonly PolicyGroup[];
  readonly egress: readonly PolicyGroup[];
}

export type ChainType = 'normal' | 'untracked' | 'preDNAT' | 'forward';

/** MaxPolicyGroupUIDLength: 28 - len("cali-gi-"). */
const GROUP_UID_LENGTH = 20;

/** PolicyGroup.UniqueID: SHA3-224 of selector, direction, count and each PolicyID.String(). */
export function groupChainName(g: PolicyGroup): string {
  const lines = [
    g.selector,
    g.direction === 'in' ? 'inbound' : 'outbound',
    String(g.policies.length),
    ...g.policies.map((p) => `{Name: ${p}, Namespace: , Kind: GlobalNetworkPolicy}`),
  ];
  const uid = b64url(sha3_224(new TextEncoder().encode(lines.map((l) => `${l}\n`).join(''))));
  return `${g.direction === 'in' ? 'cali-gi-' : 'cali-go-'}${uid.slice(0, GROUP_UID_LENGTH)}`;
}

/** PolicyGroupToIptablesChains: jumps to each policy, a RETURN on a verdict every five. */
export function groupChain(g: PolicyGroup): FChain {
  const rules: FRule[] = [];
  g.policies.forEach((p, count) => {
    if (count !== 0 && count % 5 === 0)
      rules.push({
        match: [M.markNotClear(MARKS.pass | MARKS.accept)],
        action: A.ret,
        comment: ['Return on verdict'],
      });
    rules.push({
      match: count % 5 === 0 ? [] : [M.markClear(MARKS.pass | MARKS.accept)],
      action: A.jump(policyChainName(g.direction, p)),
    });
  });
  return { name: groupChainName(g), rules };
}

export interface EndpointChainSpec {
  readonly tiers: readonly Tier[];
  readonly profiles: readonly string[];
  readonly iface: string;
  readonly direction: 'in' | 'out';
  /** `cali-tw-`, `cali-fw-`, `cali-th-`, `cali-fh-`, `cali-thfw-`, `cali-fhfw-`. */
  readonly prefix: string;
  readonly failsafe: string | null;
  readonly type: ChainType;
  /** ACCEPT, or RETURN in the mangle egress chains. */
  readonly allow: string;
  /** False for workloads (AllowVXLANPacketsFromWorkloads / AllowIPIPPacketsFromWorkloads). */
  readonly allowEncap: boolean;
}

export const endpointChainName = (prefix: string, iface: string) => lengthLimitedId(prefix, iface);

/** endpointIptablesChain (admin up, no QoS controls, no flow logs). */
export function endpointChain(s: EndpointChainSpec): FChain {
  const rules: FRule[] = [];
  if (s.type !== 'untracked') {
    // appendConntrackRules: an allow action other than ACCEPT marks the packet first.
    if (s.allow !== A.accept)
      rules.push({ match: [M.ctstate('RELATED,ESTABLISHED')], action: A.setMark(MARKS.accept) });
    rules.push({ match: [M.ctstate('RELATED,ESTABLISHED')], action: s.allow });
    rules.push({ match: [M.ctstate('INVALID')], action: A.drop });
  }
  if (s.failsafe) rules.push({ action: A.jump(s.failsafe) });
  rules.push({ action: A.clearMark(MARKS.accept | MARKS.pass) });
  if (!s.allowEncap) {
    // VXLANPort 4789; ProtoUDP and ProtoIPIP by number.
    rules.push({
      match: [M.proto(17), M.dstPorts('4789')],
      action: A.drop,
      comment: ['DROP VXLAN encapped packets originating in workloads'],
    });
    rules.push({
      match: [M.proto(4)],
      action: A.drop,
      comment: ['DROP IPinIP encapped packets originating in workloads'],
    });
  }
  for (const tier of s.tiers) {
    const groups = s.direction === 'in' ? tier.ingress : tier.egress;
    if (!groups.length) continue;
    rules.push({ action: A.clearMark(MARKS.pass), comment: [`Start of tier ${tier.name}`] });
    for (const g of groups) {
      const targets =
        g.policies.length === 1
          ? g.policies.map((p) => policyChainName(s.direction, p))
          : [groupChainName(g)];
      for (const t of targets) {
        rules.push({ match: [M.markClear(MARKS.pass)], action: A.jump(t) });
        if (s.type === 'untracked')
          rules.push({ match: [M.markSet(MARKS.accept)], action: A.notrack });
        rules.push({
          match: [M.markSet(MARKS.accept)],
          action: A.ret,
          comment: ['Return if policy accepted'],
        });
      }
    }
    if ((s.type === 'normal' || s.type === 'forward') && tier.defaultAction !== 'Pass')
      rules.push({
        match: [M.markClear(MARKS.pass)],
        action: A.drop,
        comment: [`End of tier ${tier.name}. DROP if no policies passed packet`],
      });
  }
  if (!s.tiers.length && s.type === 'forward') {
    rules.push({
      action: A.setMark(MARKS.accept),
      comment: ['Allow forwarded traffic by default'],
    });
    rules.push({ action: A.ret, comment: ['Return for accepted forward traffic'] });
  }
  if (s.type === 'normal') {
    for (const p of s.profiles) {
      rules.push({ action: A.jump(profileChainName(s.direction, p)) });
      rules.push({
        match: [M.markSet(MARKS.accept)],
        action: A.ret,
        comment: ['Return if profile accepted'],
      });
    }
    rules.push({ action: A.drop, comment: ['DROP if no profiles matched'] });
  }
  return { name: endpointChainName(s.prefix, s.iface), rules };
}

/** stringutils.CommonPrefix. */
function commonPrefix(names: readonly string[]): string {
  if (!names.length) return '';
  let p = names[0] as string;
  for (const n of names) while (!n.startsWith(p)) p = p.slice(0, -1);
  return p;
}

/**
 * buildSingleDispatchChainTree: names sorted and grouped by the character after their common
 * prefix; a group of several gets a child chain `<root>-<char>` matched with `<prefix>+`.
 */
export function dispatchTree(
  root: string,
  names: readonly string[],
  matchFor: (iface: string) => string,
  actionFor: (iface: string) => string,
  endRules: readonly FRule[],
): FChain[] {
  const sorted = [...new Set(names)].sort();
  const common = commonPrefix(sorted);
  const groups = new Map<string, string[]>();
  for (const n of sorted) {
    const key = n.length > common.length ? n.slice(0, common.length + 1) : common;
    const g = groups.get(key);
    if (g) g.push(n);
    else groups.set(key, [n]);
  }
  const children: FChain[] = [];
  const rootRules: FRule[] = [];
  for (const [prefix, members] of groups) {
    if (members.length > 1) {
      const child = `${root}-${prefix.slice(common.length)}`;
      rootRules.push({ match: [matchFor(`${prefix}+`)], action: A.goto(child) });
      children.push({
        name: child,
        rules: [
          ...members.map((m) => ({ match: [matchFor(m)], action: actionFor(m) })),
          ...endRules,
        ],
      });
    } else {
      const m = members[0] as string;
      rootRules.push({ match: [matchFor(m)], action: actionFor(m) });
    }
  }
  return [...children, { name: root, rules: [...rootRules, ...endRules] }];
}

/** The interface name Felix uses for a `*` host endpoint (longer than IFNAMSIZ on purpose). */
export const ALL_INTERFACES = 'any-interface-at-all';

/**
 * hostDispatchChains: `from` chains match the input interface, `to` chains the output one, each
 * with a goto to the per-interface chain; an all-interfaces host endpoint becomes the default at
 * the end (in the "to" direction, after skipping traffic to local workloads unless
 * applyOnForward).
 */
export function hostDispatch(
  ifaces: readonly string[],
  defaultIface: string | null,
  dirs: { from?: [string, string]; to?: [string, string] },
  applyOnForward: boolean,
): FChain[] {
  const out: FChain[] = [];
  if (dirs.from) {
    const [root, prefix] = dirs.from;
    const end: FRule[] = defaultIface
      ? [{ action: A.goto(endpointChainName(prefix, defaultIface)) }]
      : [];
    out.push(
      ...dispatchTree(root, ifaces, M.inIf, (i) => A.goto(endpointChainName(prefix, i)), end),
    );
  }
  if (dirs.to) {
    const [root, prefix] = dirs.to;
    const end: FRule[] = [];
    if (defaultIface) {
      if (!applyOnForward)
        end.push({
          match: [M.outIf('cali+')],
          action: A.ret,
          comment: ['Skip egress WHEP policy for traffic to local workload'],
        });
      end.push({ action: A.goto(endpointChainName(prefix, defaultIface)) });
    }
    out.push(
      ...dispatchTree(root, ifaces, M.outIf, (i) => A.goto(endpointChainName(prefix, i)), end),
    );
  }
  return out;
}
