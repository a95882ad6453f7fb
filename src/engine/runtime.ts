/** A host ready to simulate: its config, its validated ruleset, its ipsets; plus its mutable state. */
import { cloneConntrack, newConntrackTable, type ConntrackTable } from './conntrack.ts';
import { buildHostConfig, type HostConfig, type HostSpec } from './host.ts';
import { compileIpset, type CompiledSet } from './ipset.ts';
import {
  cloneIpvsState,
  compileIpvs,
  newIpvsState,
  type IpvsState,
  type IpvsTable,
} from './ipvs/index.ts';
import { cloneRuleState, newRuleState, type RuleState } from './match-context.ts';
import { parseRuleset, type ParseResult } from './rules/parse.ts';
import { fieldError, type Diagnostic } from './diagnostic.ts';
import type { Ruleset } from './rules/types.ts';
import { parseNftRuleset } from './nft/parse.ts';
import type { NftRuleset } from './nft/types.ts';

export interface HostRuntime {
  readonly spec: HostSpec;
  readonly config: HostConfig;
  /** Null when the host has no netfilter tables at all (then no conntrack either). */
  readonly ruleset: Ruleset | null;
  /** The ip6tables ruleset (HostSpec.rules6), same convention. */
  readonly ruleset6: Ruleset | null;
  /** The nftables ruleset (HostSpec.nftables); null when the host has no nft tables. */
  readonly nft: NftRuleset | null;
  readonly sets: ReadonlyMap<string, CompiledSet>;
  /** The host's IPVS virtual services, or null without any. */
  readonly ipvs: IpvsTable | null;
}

/**
 * A problem in a host definition is a Diagnostic whose `source` is the host's name and whose
 * `field` is the field of its spec (`interfaces[0].addresses[1]`, `rules`); a problem in a rules
 * text keeps the rule parser's line, column and hint (positions in that field's text).
 */
function ofHost(host: string, d: Diagnostic, field?: string): Diagnostic {
  return { ...d, source: host, ...(field !== undefined ? { field } : {}) };
}

/** A host's problem as one sentence: a rules text's line and column said in front. */
export function hostProblemText(d: Diagnostic): string {
  return d.line > 0 ? `line ${d.line}, column ${d.column}: ${d.message}` : d.message;
}

/**
 * Generated rulesets parsed, by text. A parsed Ruleset is never changed by a simulation (rule
 * state lives in RuleState), so when the lab re-simulates after an edit that leaves a node's
 * rules as they were, the node is not parsed again. A few entries: the nodes on one path.
 */
const parsedRules = new Map<string, ReturnType<typeof parseRuleset>>();
const PARSED_MAX = 8;

function parsedByText(
  text: string,
  deferChains: ((chain: string) => boolean) | undefined,
): ReturnType<typeof parseRuleset> {
  let hit = parsedRules.get(text);
  if (hit) {
    parsedRules.delete(text);
  } else {
    // Deferring chains changes when rules are compiled, not what they are: one entry per text.
    hit = parseRuleset(text, {
      family: 4,
      reusePieces: true,
      ...(deferChains ? { deferChains } : {}),
    });
    if (parsedRules.size >= PARSED_MAX)
      parsedRules.delete(parsedRules.keys().next().value as string);
  }
  parsedRules.set(text, hit);
  return hit;
}

/**
 * Host configs by what they are made of. A cluster's thousands of pods and their nodes' veths and
 * routes come back unchanged from one run to the next (an edit to one Service changes no host),
 * so the lab re-simulating a 5,000-pod cluster reads each address and route once. A config is
 * never changed once built (state lives in HostState), nor is a spec (its fields are readonly).
 * Entries are found by host name, then compared part by part with the spec (numbers by
 * Object.is, so NaN, -0 and an undefined in a list or as a field's value tell apart): a cold run
 * pays nothing for the cache, where writing every spec as a JSON key cost ~0.15 s at 5,000 pods
 * and hashing a node's ~1 MB key more.
 */
interface ConfigEntry {
  readonly parts: readonly unknown[];
  readonly built: ReturnType<typeof buildHostConfig>;
  gen: number;
}
const configsByName = new Map<string, ConfigEntry[]>();
let configCount = 0;
let configGeneration = 0;

/**
 * Called once per network built with `hosts` hosts: drops the configs no host of the last three
 * networks used, once the cache outgrows them (a node's config is ~1 MB at 5,000 pods; a worker
 * re-simulating for hours must not keep every version).
 */
export function trimHostConfigs(hosts: number): void {
  configGeneration++;
  if (configCount <= 4 * hosts + 256) return;
  for (const [name, list] of configsByName) {
    const kept = list.filter((e) => e.gen >= configGeneration - 3);
    configCount -= list.length - kept.length;
    if (kept.length) configsByName.set(name, kept);
    else configsByName.delete(name);
  }
}

/** Same data: arrays item by item, objects by their own keys in order, the rest by Object.is. */
function sameData(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null)
    return Object.is(a, b);
  // The same (readonly) object: a pod's spec reused by the next build of its cluster.
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (k !== kb[i]) return false;
    if (!sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

function cachedConfig(spec: HostSpec): ReturnType<typeof buildHostConfig> {
  const parts = [
    spec.role,
    spec.interfaces,
    spec.routes,
    spec.sysctls,
    spec.listeners,
    spec.ipsets,
  ];
  let list = configsByName.get(spec.name);
  const hit = list?.find((e) => sameData(e.parts, parts));
  if (hit) {
    hit.gen = configGeneration;
    return hit.built;
  }
  const entry = { parts, built: buildHostConfig(spec), gen: configGeneration };
  if (!list) configsByName.set(spec.name, (list = []));
  list.push(entry);
  configCount++;
  return entry.built;
}

/**
 * Rules files already parsed by the caller, by their text: the CLI reads a file's diagnostics
 * before it builds the host, and the host then takes that parse instead of reading the file twice.
 */
export type ParsedRules = ReadonlyMap<string, ParseResult>;

/** Builds a runtime, or reports every problem found (rules are fully validated). */
export function buildHost(
  spec: HostSpec,
  parsedRules?: ParsedRules,
): { host: HostRuntime | null; problems: Diagnostic[] } {
  if (spec.lazyNftables && !spec.nftables) {
    const { lazyNftables, ...rest } = spec;
    return withLazyNft(spec, buildHost(rest, parsedRules), lazyNftables);
  }
  const problems: Diagnostic[] = [];
  const { config, problems: cfgProblems } = cachedConfig(spec);
  for (const p of cfgProblems) problems.push(ofHost(spec.name, p));
  const parse = (text: string | undefined, family: 4 | 6, field: string): Ruleset | null => {
    if (!text || text.trim() === '') return null;
    const known = parsedRules?.get(text);
    const parsed =
      known && known.ruleset.family === family ? known : parseRuleset(text, { family });
    for (const d of parsed.diagnostics) {
      if (d.severity === 'error') problems.push(ofHost(spec.name, d, field));
    }
    return parsed.ruleset.tables.size === 0 ? null : parsed.ruleset;
  };
  const nft = spec.nftables ? parseNft(spec, spec.nftables, problems) : null;
  const rs = parse(spec.rules, 4, 'rules');
  const rs6 = parse(spec.rules6, 6, 'rules6');
  const sets = new Map<string, CompiledSet>();
  (spec.ipsets ?? []).forEach((s, i) => {
    const c = compileIpset(s);
    if ('error' in c) problems.push(ofHost(spec.name, fieldError(`ipsets[${i}]`, c.error)));
    else sets.set(s.name, c);
  });
  let ipvs: IpvsTable | null = null;
  if (spec.ipvs) {
    const c = compileIpvs(spec.ipvs);
    for (const p of c.problems) problems.push(ofHost(spec.name, p));
    ipvs = c.table;
  }
  if (problems.length) return { host: null, problems };
  if (spec.lazyRules && !rs) {
    // Generated rules (kube-proxy's, from a trusted generator) are parsed when a packet first
    // reaches the host: a 50-node cluster only pays for the nodes on the path.
    const lazy = spec.lazyRules;
    let cached: Ruleset | null | undefined;
    const host: HostRuntime = {
      spec,
      config,
      get ruleset() {
        if (cached === undefined) {
          const parsed = parsedByText(lazy(), spec.deferChains);
          const bad = parsed.diagnostics.find((d) => d.severity === 'error');
          if (bad)
            throw new Error(
              `generated rules of ${spec.name} do not load: line ${bad.line}: ${bad.message}`,
            );
          cached = parsed.ruleset.tables.size ? parsed.ruleset : null;
        }
        return cached;
      },
      ruleset6: rs6,
      nft,
      sets,
      ipvs,
    };
    return { host, problems };
  }
  return { host: { spec, config, ruleset: rs, ruleset6: rs6, nft, sets, ipvs }, problems };
}

/**
 * A generated nft ruleset (the nftables-mode generator's), parsed when a packet first reaches
 * the host, as lazyRules is for iptables: a 50-node cluster only pays for the nodes on the path.
 */
function withLazyNft(
  spec: HostSpec,
  built: { host: HostRuntime | null; problems: Diagnostic[] },
  lazy: () => string,
): { host: HostRuntime | null; problems: Diagnostic[] } {
  const inner = built.host;
  if (!inner) return built;
  let cached: NftRuleset | null | undefined;
  const host: HostRuntime = {
    spec,
    config: inner.config,
    get ruleset() {
      return inner.ruleset;
    },
    ruleset6: inner.ruleset6,
    get nft() {
      if (cached === undefined) {
        const defer = spec.deferNftChains;
        const parsed = parseNftRuleset(lazy(), defer ? { deferChains: defer } : {});
        const bad = parsed.diagnostics.find((d) => d.severity === 'error');
        if (bad)
          throw new Error(
            `generated nft rules of ${spec.name} do not load: line ${bad.line}: ${bad.message}`,
          );
        cached = parsed.ruleset.tables.length ? parsed.ruleset : null;
      }
      return cached;
    },
    sets: inner.sets,
    ipvs: inner.ipvs,
  };
  return { host, problems: built.problems };
}

/** Parses HostSpec.nftables; errors become the host's problems, with line and column. */
function parseNft(spec: HostSpec, text: string, problems: Diagnostic[]): NftRuleset | null {
  if (text.trim() === '') return null;
  const parsed = parseNftRuleset(text);
  for (const d of parsed.diagnostics) {
    if (d.severity === 'error') problems.push(ofHost(spec.name, d, 'nftables'));
  }
  return parsed.ruleset.tables.length ? parsed.ruleset : null;
}

/** One end of a TCP/UDP conversation opened by a probe, waiting for its answer. */
export interface ClientSocket {
  readonly proto: 'tcp' | 'udp' | 'sctp' | 'icmp';
  readonly local: string;
  readonly localPort: number;
  readonly remote: string;
  readonly remotePort: number;
  readonly process: string;
  readonly probeId: number;
}

export interface HostState {
  readonly conntrack: ConntrackTable;
  readonly rules: RuleState;
  readonly clients: ClientSocket[];
  nextPort: number;
  /** IPVS connections and persistence templates. */
  readonly ipvs: IpvsState;
}

export function newHostState(): HostState {
  return {
    conntrack: newConntrackTable(),
    rules: newRuleState(),
    clients: [],
    nextPort: 40000,
    ipvs: newIpvsState(),
  };
}

export function cloneHostState(s: HostState): HostState {
  return {
    conntrack: cloneConntrack(s.conntrack),
    rules: cloneRuleState(s.rules),
    clients: [...s.clients],
    nextPort: s.nextPort,
    ipvs: cloneIpvsState(s.ipvs),
  };
}
