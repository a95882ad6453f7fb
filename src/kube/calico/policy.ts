/**
 * Policy and profile rules to iptables rules, transcribed from felix/rules/policy.go
 * (projectcalico/calico 87c15906f20c4ca1fda55af92295e7678b0cc0b2): ProtoRuleToIptablesRules with
 * its match blocks (several CIDRs or port groups are ORed through the scratch mark bits),
 * CalculateRuleMatch's fragment order, CombineMatchAndActionsForProtoRule (Allow and Pass set a
 * mark and RETURN, Deny sets the drop mark and DROPs, Log LOGs and goes on), and
 * ProtoRulesToIptablesRules, which drops trailing RETURNs and puts the chain's comment on its
 * first rule.
 */
import { lengthLimitedId, ipsetName, makeUniqueId } from './hash.ts';
import { A, M, type FRule } from './iptables.ts';
import { MARKS } from './marks.ts';
import { canonical } from './selector.ts';
import type { CalicoProtocol, CalicoRule, EntityRule, PortRange } from './types.ts';

/** The IP set a selector in a rule becomes: id `s:<hash of the selector's String()>`. */
export function selectorSetName(sel: Parameters<typeof canonical>[0]): string {
  return ipsetName(makeUniqueId('s', canonical(sel)));
}

/** PolicyChainName: `cali-pi-` / `cali-po-` + `gnp/<name>`, length-limited. */
export function policyChainName(dir: 'in' | 'out', name: string): string {
  return lengthLimitedId(dir === 'in' ? 'cali-pi-' : 'cali-po-', `gnp/${name}`);
}

export function profileChainName(dir: 'in' | 'out', name: string): string {
  return lengthLimitedId(dir === 'in' ? 'cali-pri-' : 'cali-pro-', name);
}

const portText = (p: PortRange) => (p.first === p.last ? `${p.first}` : `${p.first}:${p.last}`);

/** SplitPortList: multiport takes 15 slots, a range uses two. */
export function splitPorts(ports: readonly PortRange[]): string[] {
  const out: string[][] = [];
  let cur: string[] = [];
  let free = 15;
  for (const p of ports) {
    const need = p.first === p.last ? 1 : 2;
    if (free < need) {
      out.push(cur);
      cur = [];
      free = 15;
    }
    cur.push(portText(p));
    free -= need;
  }
  if (cur.length) out.push(cur);
  return out.map((s) => s.join(','));
}

const protoText = (p: CalicoProtocol) => ('name' in p ? p.name.toLowerCase() : p.number);

const v4 = (nets: readonly string[]) => nets.filter((n) => !n.includes(':'));

interface Flat {
  protocol: CalicoProtocol | null;
  notProtocol: CalicoProtocol | null;
  srcNet: string[];
  notSrcNet: string[];
  dstNet: string[];
  notDstNet: string[];
  srcSets: string[];
  notSrcSets: string[];
  dstSets: string[];
  notDstSets: string[];
  srcPorts: PortRange[];
  notSrcPorts: PortRange[];
  dstPorts: PortRange[];
  notDstPorts: PortRange[];
}

/** The v3 rule as the calculation graph hands it to Felix (felix/calc/rule_convert.go). */
function flatten(r: CalicoRule): Flat | null {
  const side = (e: EntityRule) => ({
    net: v4(e.nets),
    notNet: v4(e.notNets),
    sets: e.selector ? [selectorSetName(e.selector)] : [],
    notSets: e.notSelector ? [selectorSetName(e.notSelector)] : [],
  });
  const s = side(r.source);
  const d = side(r.destination);
  // FilterRuleToIPVersion: a rule whose nets are all IPv6 is not rendered for IPv4; a negated
  // catch-all would match nothing.
  if ((r.source.nets.length && !s.net.length) || (r.destination.nets.length && !d.net.length))
    return null;
  if (s.notNet.includes('0.0.0.0/0') || d.notNet.includes('0.0.0.0/0')) return null;
  return {
    protocol: r.protocol,
    notProtocol: r.notProtocol,
    srcNet: s.net,
    notSrcNet: s.notNet,
    dstNet: d.net,
    notDstNet: d.notNet,
    srcSets: s.sets,
    notSrcSets: s.notSets,
    dstSets: d.sets,
    notDstSets: d.notSets,
    srcPorts: [...r.source.ports],
    notSrcPorts: [...r.source.notPorts],
    dstPorts: [...r.destination.ports],
    notDstPorts: [...r.destination.notPorts],
  };
}

/** matchBlockBuilder: ORs of CIDRs or port groups, ANDed through scratch0/scratch1. */
class Blocks {
  rules: FRule[] = [];
  using = false;
  firstPositiveDone = false;
  private initial(bits: number) {
    if (this.using) return;
    this.rules.push({
      action: A.setMaskedMark(bits, MARKS.scratch0 | MARKS.scratch1),
    });
    this.using = true;
  }
  private markToSet() {
    return this.firstPositiveDone ? MARKS.scratch1 : MARKS.scratch0;
  }
  private finish() {
    if (!this.firstPositiveDone) {
      this.firstPositiveDone = true;
      return;
    }
    this.rules.push({ match: [M.markClear(MARKS.scratch1)], action: A.clearMark(MARKS.scratch0) });
  }
  ports(protocol: CalicoProtocol | null, splits: string[], dir: 'src' | 'dst') {
    this.initial(0);
    const mark = this.markToSet();
    for (const s of splits)
      this.rules.push({
        match: [
          ...(protocol ? [M.proto(protoText(protocol))] : []),
          dir === 'src' ? M.srcPorts(s) : M.dstPorts(s),
        ],
        action: A.setMark(mark),
      });
    this.finish();
  }
  cidrs(cidrs: string[], dir: 'src' | 'dst') {
    this.initial(0);
    const mark = this.markToSet();
    for (const c of cidrs)
      this.rules.push({ match: [dir === 'src' ? M.src(c) : M.dst(c)], action: A.setMark(mark) });
    this.finish();
  }
  negatedCidrs(cidrs: string[], dir: 'src' | 'dst') {
    this.initial(MARKS.scratch0);
    for (const c of cidrs)
      this.rules.push({
        match: [dir === 'src' ? M.src(c) : M.dst(c)],
        action: A.clearMark(MARKS.scratch0),
      });
  }
}

/** CalculateRuleMatch, in its order of fragments. */
function ruleMatch(f: Flat): string[] {
  const m: string[] = [];
  if (f.protocol) m.push(M.proto(protoText(f.protocol)));
  if (f.srcNet.length === 1) m.push(M.src(f.srcNet[0] as string));
  for (const s of f.srcSets) m.push(M.srcSet(s));
  if (f.srcPorts.length) m.push(M.srcPorts(splitPorts(f.srcPorts)[0] as string));
  if (f.dstNet.length === 1) m.push(M.dst(f.dstNet[0] as string));
  for (const s of f.dstSets) m.push(M.dstSet(s));
  if (f.dstPorts.length) m.push(M.dstPorts(splitPorts(f.dstPorts)[0] as string));
  if (f.notProtocol) m.push(M.notProto(protoText(f.notProtocol)));
  if (f.notSrcNet.length === 1) m.push(M.notSrc(f.notSrcNet[0] as string));
  for (const s of f.notSrcSets) m.push(M.notSrcSet(s));
  for (const s of splitPorts(f.notSrcPorts)) m.push(M.notSrcPorts(s));
  if (f.notDstNet.length === 1) m.push(M.notDst(f.notDstNet[0] as string));
  for (const s of f.notDstSets) m.push(M.notDstSet(s));
  for (const s of splitPorts(f.notDstPorts)) m.push(M.notDstPorts(s));
  return m;
}

/** ProtoRuleToIptablesRules + CombineMatchAndActionsForProtoRule (no flow logs, no rate limit). */
export function ruleToIptables(r: CalicoRule): FRule[] {
  const f = flatten(r);
  if (!f) return [];
  const b = new Blocks();
  const srcSplits = splitPorts(f.srcPorts);
  if (srcSplits.length > 1) {
    b.ports(f.protocol, srcSplits, 'src');
    f.srcPorts = [];
  }
  const dstSplits = splitPorts(f.dstPorts);
  if (dstSplits.length > 1) {
    b.ports(f.protocol, dstSplits, 'dst');
    f.dstPorts = [];
  }
  if (f.srcNet.length > 1) {
    b.cidrs(f.srcNet, 'src');
    f.srcNet = [];
  }
  if (f.dstNet.length > 1) {
    b.cidrs(f.dstNet, 'dst');
    f.dstNet = [];
  }
  if (f.srcNet.length + f.notSrcNet.length > 1) {
    b.negatedCidrs(f.notSrcNet, 'src');
    f.notSrcNet = [];
  }
  if (f.dstNet.length + f.notDstNet.length > 1) {
    b.negatedCidrs(f.notDstNet, 'dst');
    f.notDstNet = [];
  }
  const match = ruleMatch(f);
  if (b.using) match.push(M.markSet(MARKS.scratch0));
  const out: FRule[] = [...b.rules];
  if (r.action === 'Log')
    // generateLogPrefix: the default LogPrefix "calico-packet" has no % specifiers.
    out.push({ match, action: A.log('calico-packet') });
  else {
    const mark =
      r.action === 'Allow' ? MARKS.accept : r.action === 'Pass' ? MARKS.pass : MARKS.drop;
    out.push({ match, action: A.setMark(mark) });
    out.push({ match: [M.markSet(mark)], action: r.action === 'Deny' ? A.drop : A.ret });
  }
  return out;
}

/** ProtoRulesToIptablesRules: the rules of one direction of a policy or profile. */
export function rulesToIptables(rules: readonly CalicoRule[], comment: string): FRule[] {
  const out = rules.flatMap(ruleToIptables);
  while (out.length && out[out.length - 1]?.action === A.ret) out.pop();
  if (!out.length) out.push({});
  const first = out[0] as FRule;
  out[0] = { ...first, comment: [...(first.comment ?? []), comment] };
  return out;
}
