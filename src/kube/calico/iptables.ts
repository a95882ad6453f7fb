/**
 * Felix's iptables rule pieces as felix/iptables/match_builder.go and actions.go render them
 * (projectcalico/calico 87c15906f20c4ca1fda55af92295e7678b0cc0b2), and RenderAppend/RenderInsert
 * of felix/iptables/renderer.go: `-A chain -m comment --comment "cali:<hash>" [comments] match
 * action`. The text is Felix's iptables-restore input, which the engine and iptables-restore read
 * as they read iptables-save output.
 */
import { ruleHashes } from './hash.ts';

export interface FRule {
  readonly match?: readonly string[];
  readonly action?: string;
  readonly comment?: readonly string[];
}

export interface FChain {
  readonly name: string;
  readonly rules: readonly FRule[];
}

/** Go's %#x: 0x10000, and 0x0 for zero. */
export const hex = (n: number): string => `0x${(n >>> 0).toString(16)}`;

export const M = {
  markClear: (m: number) => `-m mark --mark 0/${hex(m)}`,
  markNotClear: (m: number) => `-m mark ! --mark 0/${hex(m)}`,
  markSet: (m: number) => `-m mark --mark ${hex(m)}/${hex(m)}`,
  inIf: (i: string) => `--in-interface ${i}`,
  outIf: (i: string) => `--out-interface ${i}`,
  ctstate: (s: string) => `-m conntrack --ctstate ${s}`,
  notCtstate: (s: string) => `-m conntrack ! --ctstate ${s}`,
  proto: (p: string | number) => `-p ${p}`,
  notProto: (p: string | number) => `! -p ${p}`,
  src: (n: string) => `--source ${n}`,
  notSrc: (n: string) => `! --source ${n}`,
  dst: (n: string) => `--destination ${n}`,
  notDst: (n: string) => `! --destination ${n}`,
  srcSet: (s: string) => `-m set --match-set ${s} src`,
  notSrcSet: (s: string) => `-m set ! --match-set ${s} src`,
  dstSet: (s: string) => `-m set --match-set ${s} dst`,
  notDstSet: (s: string) => `-m set ! --match-set ${s} dst`,
  srcPorts: (p: string) => `-m multiport --source-ports ${p}`,
  notSrcPorts: (p: string) => `-m multiport ! --source-ports ${p}`,
  dstPorts: (p: string) => `-m multiport --destination-ports ${p}`,
  notDstPorts: (p: string) => `-m multiport ! --destination-ports ${p}`,
  rpfCheckFailed: () => '-m rpfilter --invert --validmark',
};

export const A = {
  jump: (c: string) => `--jump ${c}`,
  goto: (c: string) => `--goto ${c}`,
  ret: '--jump RETURN',
  accept: '--jump ACCEPT',
  drop: '--jump DROP',
  notrack: '--jump NOTRACK',
  setMark: (m: number) => `--jump MARK --set-mark ${hex(m)}/${hex(m)}`,
  clearMark: (m: number) => `--jump MARK --set-mark 0/${hex(m)}`,
  setMaskedMark: (m: number, mask: number) => `--jump MARK --set-mark ${hex(m)}/${hex(mask)}`,
  log: (prefix: string) => `--jump LOG --log-prefix "${prefix}: " --log-level 5`,
  masq: '--jump MASQUERADE --random-fully',
};

/** escapeComment: anything but `[\w @%+=:,./-]` becomes `_`; at most 256 characters. */
const escapeComment = (c: string) => c.replace(/[^\w @%+=:,./-]/g, '_').slice(0, 256);

function body(r: FRule): string[] {
  const out = (r.comment ?? []).map((c) => `-m comment --comment "${escapeComment(c)}"`);
  const m = (r.match ?? []).join(' ');
  if (m) out.push(m);
  if (r.action) out.push(r.action);
  return out;
}

/**
 * A chain's rules as `-A` (or `-I`) lines with their `cali:` hash comments. Rules Felix appends
 * to a built-in chain are hashed as the chain `<name>*appends*` (Table.
 * expectedHashesForInsertAppendChain), so that they differ from the inserted ones.
 */
export function renderChain(c: FChain, verb = '-A', hashChain = c.name): string[] {
  const hashes = ruleHashes(
    hashChain,
    c.rules.map((r) => ['-A', hashChain, 'HASH', ...body(r)].join(' ')),
  );
  return c.rules.map((r, i) =>
    [verb, c.name, `-m comment --comment "cali:${hashes[i]}"`, ...body(r)].join(' '),
  );
}
