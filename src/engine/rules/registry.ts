/**
 * The iptables extensions the engine knows, by name. Adding one is adding a file in `xt/` and a
 * line here; the parser, the compiler and the walk need no change.
 */
import type { MatchExtension, TargetExtension } from './extension.ts';
import { addrtype } from './xt/addrtype.ts';
import { conntrack, state } from './xt/conntrack.ts';
import { icmp } from './xt/icmp.ts';
import { iprange } from './xt/iprange.ts';
import { ipvs } from './xt/ipvs.ts';
import { LOG, NFLOG } from './xt/log.ts';
import { CONNMARK, MARK, connmark, mark } from './xt/mark.ts';
import { multiport } from './xt/multiport.ts';
import { DNAT, MASQUERADE, REDIRECT, SNAT } from './xt/nat.ts';
import { comment, limit, nfacct } from './xt/passive.ts';
import { physdev } from './xt/physdev.ts';
import { pkttype } from './xt/pkttype.ts';
import { CT, NOTRACK, TRACE } from './xt/raw.ts';
import { recent } from './xt/recent.ts';
import { REJECT } from './xt/reject.ts';
import { rpfilter } from './xt/rpfilter.ts';
import { set } from './xt/set.ts';
import { ACCEPT, DROP, RETURN } from './xt/standard.ts';
import { statistic } from './xt/statistic.ts';
import { sctp, tcp, udp, udplite } from './xt/tcpudp.ts';
import { UNSUPPORTED_MATCHES, UNSUPPORTED_TARGETS } from './xt/unsupported.ts';

// Maps, not object lookups: most -j words are chain names (misses), which objects handle slowly.
const MATCHES = new Map<string, MatchExtension>(
  [
    tcp,
    udp,
    udplite,
    sctp,
    icmp,
    multiport,
    comment,
    addrtype,
    mark,
    connmark,
    conntrack,
    state,
    statistic,
    recent,
    set,
    iprange,
    ipvs,
    limit,
    nfacct,
    pkttype,
    physdev,
    rpfilter,
    ...UNSUPPORTED_MATCHES,
  ].map((m) => [m.name, m]),
);

const TARGETS = new Map<string, TargetExtension>(
  [
    ACCEPT,
    DROP,
    RETURN,
    DNAT,
    SNAT,
    MASQUERADE,
    REDIRECT,
    MARK,
    CONNMARK,
    REJECT,
    LOG,
    NFLOG,
    TRACE,
    NOTRACK,
    CT,
    ...UNSUPPORTED_TARGETS,
  ].map((t) => [t.name, t]),
);

export function lookupMatch(name: string): MatchExtension | undefined {
  return MATCHES.get(name);
}

export function lookupTarget(name: string): TargetExtension | undefined {
  return TARGETS.get(name);
}

/** Protocols whose match module is loaded implicitly by `-p` (`-p tcp --dport 80`). */
export const IMPLICIT_PROTO_MODULES = new Set(['tcp', 'udp', 'sctp', 'icmp', 'udplite']);

/** Modules the lab does not know but which keep state, so their chains are never "pure". */
const STATEFUL_UNKNOWN = new Set(['hashlimit', 'quota', 'connlimit', 'connbytes']);

/**
 * Whether a `-m name` match reads or writes state a second walk of its chain would see; `ext`
 * is the module's extension when the caller has looked it up already.
 */
export function isStatefulModule(name: string, ext = lookupMatch(name)): boolean {
  return ext ? ext.stateful === true : STATEFUL_UNKNOWN.has(name);
}

/** Every extension name and option name, for the tokenizer's table of known words. */
export function knownWords(): string[] {
  const out: string[] = [];
  for (const ext of [...MATCHES.values(), ...TARGETS.values()])
    out.push(ext.name, ...Object.keys(ext.options));
  return out;
}
