/**
 * Scenario files on the real kernel: every variant's cluster as a KernelLab spec, and the
 * kernel's answer to a probe as an engine Outcome, so that a scenario's `expect` is checked
 * against the kernel with the very code that checks it against the engine (outcomeDiff).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  valueOf,
  type Choice,
  type NetworkSpec,
  type Outcome,
  type TraceEvent,
} from '../engine/index.ts';
import { answeredByMatches } from '../cluster/expect.ts';
import { clusterOf, probeFor } from '../cluster/lab.ts';
import {
  loadScenario,
  scenarioModes,
  type KubeProxyMode,
  type ProbeDef,
} from '../cluster/scenario.ts';
import type { BuiltCluster } from '../cluster/topology.ts';
import type { AgentResult } from './agents.ts';
import type { KernelLab, KernelProbe } from './lab.ts';

export interface VariantCase {
  /** The variant's id; undefined for a scenario without variants. */
  readonly id: string | undefined;
  /** The kube-proxy mode the variant runs in (one of the scenario's kubeProxyModes). */
  readonly mode: KubeProxyMode;
  readonly cluster: BuiltCluster | null;
  /** Errors in the scenario or its manifests: the variant cannot be built. */
  readonly errors: readonly string[];
  readonly probes: readonly ProbeDef[];
}

export interface ScenarioCase {
  readonly file: string;
  readonly errors: readonly string[];
  readonly variants: readonly VariantCase[];
}

/**
 * Every scenario file of `dir`, every variant built (base scenario if it has none) in every
 * kube-proxy mode the scenario runs in.
 */
export function scenarioCases(dir: string): ScenarioCase[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  return files.map((file) => {
    const read = loadScenario(readFileSync(join(dir, file), 'utf8'));
    const scenario = valueOf(read);
    const { diagnostics } = read;
    const errors = diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.field ?? ''}: ${d.message}`);
    if (!scenario) return { file, errors, variants: [] };
    const ids = scenario.def.variants?.length
      ? scenario.def.variants.map((v) => v.id)
      : [undefined];
    const variants = scenarioModes(scenario.def).flatMap((mode) =>
      ids.map((id) => {
        const built = clusterOf(scenario, id, undefined, mode);
        return {
          id,
          mode,
          cluster: built.cluster,
          errors: built.diagnostics
            .filter((d) => d.severity === 'error')
            .map((d) => `${d.field ?? ''}: ${d.message}`),
          probes: built.probes,
        };
      }),
    );
    return { file, errors, variants };
  });
}

/**
 * The cluster's NetworkSpec with every node's generated rules in `rules` (kube-proxy's output
 * merged with the node's own, exactly the text the engine parses from `lazyRules`) and, on
 * nftables-mode nodes, kube-proxy's table in `nftables`: the harness loads `rules` with
 * iptables-restore and `nftables` with `nft -f`, and the engine then reads the same spec.
 */
export function kernelSpec(c: BuiltCluster): NetworkSpec {
  return {
    ...c.network,
    hosts: c.network.hosts.map((h) => {
      const { lazyRules, lazyNftables, ...rest } = h;
      return {
        ...rest,
        ...(lazyRules ? { rules: lazyRules() } : {}),
        ...(lazyNftables ? { nftables: lazyNftables() } : {}),
      };
    }),
  };
}

/** The engine probe of a scenario probe, as the kernel harness runs it. */
export function kernelProbeOf(c: BuiltCluster, p: ProbeDef): KernelProbe {
  const r = probeFor(c, { from: p.from, to: p.to, ...(p.proto ? { proto: p.proto } : {}) });
  if ('error' in r) throw new Error(`probe ${p.from} -> ${p.to}: ${r.error}`);
  if (r.probe.kind !== 'connect') throw new Error(`probe ${p.from} -> ${p.to} is not a connect`);
  return r.probe;
}

/**
 * Which host and process answered on the kernel: the one listener with the reply the client got,
 * on the port and local address the accepting socket saw (127/8 never leaves the sender). The
 * kernel's own evidence, independent of what the engine predicted.
 */
export function answeringListener(
  spec: NetworkSpec,
  probe: KernelProbe,
  r: Extract<AgentResult, { kind: 'answered' }>,
): { host: string; process: string } {
  const found = spec.hosts.flatMap((h) => {
    const owns = r.dstSeen.startsWith('127.')
      ? h.name === probe.from
      : h.interfaces.some((i) => i.addresses.some((a) => a.split('/')[0] === r.dstSeen));
    if (!owns) return [];
    return (h.listeners ?? [])
      .filter(
        (l) =>
          l.proto === probe.proto &&
          l.port === r.dstPortSeen &&
          (l.address === '0.0.0.0' || l.address === r.dstSeen) &&
          (l.reply ?? `${l.process}@${h.name}`) === r.reply,
      )
      .map((l) => ({ host: h.name, process: l.process }));
  });
  const [one] = found;
  if (!one || found.length > 1)
    throw new Error(
      `cannot tell which host answered "${r.reply}" on ${r.dstSeen}:${r.dstPortSeen} (${found.length} candidates)`,
    );
  return one;
}

/** The kernel's result in the engine's terms (refusals carry the errno in `via`). */
export function kernelOutcome(spec: NetworkSpec, probe: KernelProbe, r: AgentResult): Outcome {
  switch (r.kind) {
    case 'answered':
      return {
        kind: 'answered',
        // An echo reply comes from the kernel of the host lab.ts named in the reply text.
        ...(probe.proto === 'icmp'
          ? { host: r.reply.replace(/^echo-reply from /, ''), process: 'kernel' }
          : answeringListener(spec, probe, r)),
        reply: r.reply,
        srcSeen: r.srcSeen,
        srcPortSeen: r.srcPortSeen,
        dstSeen: r.dstSeen,
        dstPortSeen: r.dstPortSeen,
      };
    case 'error':
      return { kind: 'refused', via: r.code, from: r.from ?? 'the kernel', host: probe.from };
    case 'timeout':
      // Connected but silent is not a timeout in the scenario's sense: keep it apart.
      return r.connected
        ? { kind: 'unsupported', host: probe.from, what: 'connected, no answer', line: 0 }
        : { kind: 'timeout', reason: `no answer within the client timeout`, host: null };
    default:
      return { kind: 'unsupported', host: probe.from, what: `garbled: ${r.text}`, line: 0 };
  }
}

/** The `split` entry (with a nonzero share) that an answer matches, or null. */
export function splitEntry(
  c: BuiltCluster,
  split: Readonly<Record<string, number>>,
  o: Outcome,
): string | null {
  return (
    Object.entries(split).find(([ref, p]) => p > 0 && answeredByMatches(c, o, ref))?.[0] ?? null
  );
}

/**
 * The ECMP decisions of an engine run. The kernel hashes a flow's addresses (policy 0: L3), so
 * a client always takes the same next hop to one destination: only runs with the same ECMP
 * decisions as the one the kernel matched can show up when the probe is repeated.
 */
export function ecmpKey(choices: readonly Choice[]): string {
  return choices
    .filter((c) => c.label.startsWith('ecmp '))
    .map((c) => `${c.label}=${c.index}`)
    .join(';');
}

const execFileP = promisify(execFile);

/**
 * Forgets every host's neighbour cache (permanent entries, i.e. pinned ARP owners, stay). A
 * probe leaves resolved or FAILED entries behind; the engine starts each probe with empty
 * caches, so the kernel must too for probes to be independent. One shell for all hosts: a
 * spawn from Node costs more than the `ip` commands themselves.
 */
export async function flushAllNeighbours(lab: KernelLab): Promise<void> {
  const script = lab.spec.hosts.map(() => 'ip -n "$1" neigh flush all && shift').join(' && ');
  await execFileP('sh', ['-c', script, 'sh', ...lab.spec.hosts.map((h) => lab.ns(h.name))]);
}

/**
 * One lab for consecutive variants whose hosts differ only in their rules (a Service added,
 * a policy changed: what kube-proxy itself does to a running node). Switching loads the new
 * rules with iptables-restore (kube-proxy's nft table with nft -f, after them: KernelLab.load) and
 * flushes conntrack, so each variant starts as a fresh cluster;
 * a different topology gets a fresh lab. Starting a lab costs seconds (a Node process per host).
 */
export class LabReuse {
  private lab: KernelLab | null = null;
  private key = '';

  async get(spec: NetworkSpec, start: (s: NetworkSpec) => Promise<KernelLab>): Promise<KernelLab> {
    // Hosts with rules get a trace monitor at start: whether a host has rules is topology.
    // Whether a host has an nft ruleset is topology too (nftables mode); its text is not.
    const key = JSON.stringify({
      ...spec,
      hosts: spec.hosts.map(({ rules, nftables, ...h }) => ({
        ...h,
        traced: (rules ?? '').trim() !== '',
        nft: (nftables ?? '').trim() !== '',
      })),
    });
    if (this.lab && key === this.key) {
      const lab = this.lab;
      const next = new Map(spec.hosts.map((h) => [h.name, h]));
      for (const h of lab.spec.hosts) {
        const rules = next.get(h.name)?.rules ?? '';
        const nft = next.get(h.name)?.nftables ?? '';
        // One load per host, in the engine's registration order (KernelLab.load): a new
        // iptables ruleset reloads the host's nft tables after it, whether they changed or not.
        const change = {
          ...((h.rules ?? '') !== rules ? { rules } : {}),
          ...((h.nftables ?? '') !== nft ? { nftables: nft } : {}),
        };
        if (Object.keys(change).length === 0) continue;
        lab.load(h.name, change);
        await lab.refreshTrace(h.name);
      }
      const script = lab.spec.hosts
        .map(() => 'ip netns exec "$1" conntrack -F 2>/dev/null && shift')
        .join(' && ');
      await execFileP('sh', ['-c', script, 'sh', ...lab.spec.hosts.map((h) => lab.ns(h.name))]);
      return lab;
    }
    this.close();
    this.lab = await start(spec);
    this.key = key;
    return this.lab;
  }

  close(): void {
    this.lab?.close();
    this.lab = null;
    this.key = '';
  }
}

/**
 * Does the kernel's trace of the first packet pass a source NAT rule with `--random-fully`
 * (kube-proxy's MASQUERADE)? The kernel then draws the source port at random
 * (NF_NAT_RANGE_PROTO_RANDOM_FULLY), a value no simulation can predict; the engine keeps the
 * client's port. Events read `nat:CHAIN:rule:N:ACCEPT`: the Nth `-A CHAIN` line of the host's rules.
 */
export function randomisedSourcePort(
  spec: NetworkSpec,
  traces: readonly { host: string; packet: string; kernel: readonly string[] }[],
): boolean {
  return traces.some((t) => {
    if (t.packet !== 'first') return false;
    // The nat table's lines only: a chain name (KUBE-SERVICES) can exist in several tables.
    const text = spec.hosts.find((h) => h.name === t.host)?.rules ?? '';
    const rules = (/^\*nat$([\s\S]*?)^COMMIT$/m.exec(text)?.[1] ?? '').split('\n');
    return t.kernel.some((e) => {
      const m = /^nat:([^:]+):rule:(\d+):ACCEPT$/.exec(e);
      if (!m) return false;
      const line = rules.filter((l) => l.startsWith(`-A ${m[1]} `))[Number(m[2]) - 1] ?? '';
      return /-j (MASQUERADE|SNAT)\b.*--random-fully/.test(line);
    });
  });
}

/**
 * The same for kube-proxy's nftables table (`masquerade fully-random` in its masquerading chain),
 * read off the engine's run: the kernel's trace of a lab that reads `nft monitor trace` is in nft
 * notation, which randomisedSourcePort does not read (iptables rules with --random-fully in such a
 * lab count too). Only hosts whose loaded rules have such a rule count, so the exemption never
 * outgrows what the kernel was given.
 */
export function nftRandomisedSourcePort(spec: NetworkSpec, events: readonly TraceEvent[]): boolean {
  const random = /fully-random|--random-fully/;
  return events.some((e) => {
    if (e.type !== 'rule' || (e.target !== 'MASQUERADE' && e.target !== 'SNAT')) return false;
    if (e.packetId !== 1 || !random.test(e.text)) return false;
    const h = spec.hosts.find((x) => x.name === e.host);
    return random.test(`${h?.nftables ?? ''}\n${h?.rules ?? ''}`);
  });
}
