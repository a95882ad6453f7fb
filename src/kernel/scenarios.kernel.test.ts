/**
 * Every scenario in scenarios/*.yaml on the real kernel: each variant's cluster (nodes, pods,
 * clients, routers, L2 segments, VIPs on their holder) built as namespaces in every kube-proxy
 * mode the scenario lists, kube-proxy's generated rules loaded into each node (iptables-restore in
 * iptables mode, `nft -f` of its kube-proxy table in nftables mode), and every probe sent for real.
 * The real outcome must equal the scenario's `expect` (checked by the same outcomeDiff as the
 * engine's table test, src/cluster/scenarios.test.ts) and the engine's prediction: outcome,
 * answering host and process, source address and port seen, errno, and the rule sequence of
 * every node for the first packet and its answer.
 *
 * What the kernel does that a prediction cannot, handled here explicitly:
 * - statistic rules: the kernel draws one endpoint per connection. The probe is repeated
 *   (bounded) until two endpoints have answered, whenever the engine says several can; each
 *   answer must be one the engine enumerates and a nonzero share of the scenario's `split`.
 * - ECMP: the router hashes the flow's addresses, so one client always takes the same next hop;
 *   only endpoints behind that hop can show up (ecmpKey).
 * - MASQUERADE --random-fully (nftables: masquerade fully-random) draws the source port at
 *   random: the port is compared only where no such rule was on the path (randomisedSourcePort,
 *   nftRandomisedSourcePort); the address always is.
 * - nftables mode: the lab reads `nft -a monitor trace` instead of xtables-monitor, so the rule
 *   sequences compared are those of every table on the node, kube-proxy's by nft handle.
 * - ICMP errors are rate-limited per peer (and share that clock with redirects): no scenario
 *   probe is refused by an ICMP error today (their refusals are TCP resets), so none is exempt;
 *   a new one that trips over the limit fails rather than passes.
 * - ICMP echo probes (`proto: icmp`) are sent by `ping` in the sender's namespace (ping.ts): the
 *   answering kernel is the host owning the echo reply's source address; ping cannot see the
 *   source address the answering host saw, so that part of an echo answer is not compared.
 * - state left by a probe: neighbour caches are flushed before each connection, every
 *   connection has a fresh source port (a fresh conntrack tuple), and consecutive variants
 *   sharing one lab get their conntrack tables flushed (LabReuse).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeDiff } from '../cluster/expect.ts';
import type { ProbeDef } from '../cluster/scenario.ts';
import type { NetworkSpec, Outcome } from '../engine/index.ts';
import { kubeProxyOf, type BuiltCluster } from '../cluster/topology.ts';
import { comparisonText, crossCheck, onlyLostKernelLines } from './compare.ts';
import { expectAgreement } from './expect.ts';
import { KernelLab, type LabOptions } from './lab.ts';
import {
  LabReuse,
  ecmpKey,
  flushAllNeighbours,
  kernelOutcome,
  kernelProbeOf,
  kernelSpec,
  nftRandomisedSourcePort,
  randomisedSourcePort,
  scenarioCases,
  splitEntry,
} from './scenario-lab.ts';
import { describeKernel } from './support.ts';

const DIR = join(import.meta.dirname, '../../scenarios');

/**
 * A cluster with nftables-mode nodes is traced with `nft -a monitor trace` (every table: kube-proxy's
 * and the iptables-nft ones, see nft-trace.ts), on every host with rules of either kind; an
 * iptables-only cluster with xtables-monitor, as before.
 */
function labOptions(spec: NetworkSpec): LabOptions {
  const nft = spec.hosts.some((h) => (h.nftables ?? '').trim() !== '');
  if (!nft) return {};
  const traced = spec.hosts.filter((h) => `${h.rules ?? ''}${h.nftables ?? ''}`.trim() !== '');
  return { monitor: 'nft', trace: traced.map((h) => h.name) };
}
/**
 * Upper bound on repetitions of a probe whose answer is random (statistic rules). It stops as
 * soon as two different endpoints have answered. No endpoint of the scenarios takes more than
 * half of the connections behind one next hop, so 32 tries landing on the same one would be a
 * 2^-31 event (and still only 4e-6 at a share of 2/3).
 */
const MAX_REPEATS = 32;

/** What was proven, for the summary printed at the end. */
interface Tally {
  probes: number;
  tries: number;
  /** Rule events (table:chain:rule:N:VERDICT) compared between kernel and engine. */
  events: number;
  /** Answers whose source port the kernel drew at random (--random-fully): not compared. */
  randomPorts: number;
  /** Connections run again because the kernel's trace had lost lines (onlyLostKernelLines). */
  rerun: number;
}
const total: Tally & { variants: number; files: number } = {
  files: 0,
  variants: 0,
  probes: 0,
  tries: 0,
  events: 0,
  randomPorts: 0,
  rerun: 0,
};
const lines: string[] = [];

/** Runs one scenario probe on the kernel (repeated for random branches) and asserts everything. */
async function proveProbe(
  lab: KernelLab,
  cluster: BuiltCluster,
  def: ProbeDef,
  tally: Tally,
): Promise<void> {
  const probe = kernelProbeOf(cluster, def);
  const seen = new Set<string>();
  let reachable = new Set<string>();
  for (let i = 0; i < MAX_REPEATS; i++) {
    // Each probe as if it were the first: no neighbour entries from the previous one. Conntrack
    // needs no flush: every probe has a fresh source port, hence a fresh tuple.
    await flushAllNeighbours(lab);
    let c = await crossCheck(lab, probe);
    // A monitor that fell behind loses lines but never invents them: run such a connection once
    // more (fresh source port, fresh tuple); a second disagreement fails below as any other.
    if (onlyLostKernelLines(c)) {
      process.stdout.write(`kernel trace lost lines, running again:\n${comparisonText(c)}\n`);
      tally.rerun++;
      await flushAllNeighbours(lab);
      c = await crossCheck(lab, probe);
    }
    const k = kernelOutcome(lab.spec, c.probe, c.raw.result);
    const why = `\n${comparisonText(c)}`;
    // (1) the kernel against the scenario's expectation.
    expect(outcomeDiff(cluster, def.expect, k), `kernel vs scenario${why}`).toEqual([]);
    if (def.expect.split)
      expect(splitEntry(cluster, def.expect.split, k), `not a nonzero split share${why}`).not.toBe(
        null,
      );
    // (2) the kernel against the engine: outcome, source seen, errno, rule traces, and the
    // answering host and process (the reply text alone could be shared by several pods).
    expectAgreement(c);
    // A branch the engine enumerates with probability 0 is one it says never happens.
    expect(c.run.probability, `the engine gives this outcome no chance${why}`).toBeGreaterThan(0);
    tally.tries++;
    tally.events += c.traces.reduce((n, t) => n + t.kernel.length, 0);
    if (k.kind === 'answered') {
      const e = c.outcome;
      const listener = (o: Outcome) =>
        o.kind === 'answered' ? `${o.host}/${o.process} ${o.dstSeen}:${o.dstPortSeen}` : o.kind;
      expect(listener(e), `answering listener differs${why}`).toBe(listener(k));
      // The source port too, unless a MASQUERADE --random-fully on the path drew it at random
      // (then only the address can be predicted; see randomisedSourcePort).
      const random =
        randomisedSourcePort(lab.spec, c.traces) || nftRandomisedSourcePort(lab.spec, c.run.events);
      if (e.kind === 'answered' && !random)
        expect(e.srcPortSeen, `source port seen differs${why}`).toBe(k.srcPortSeen);
      else tally.randomPorts++;
    }
    seen.add(k.kind === 'answered' ? k.host : k.kind);
    // Engine runs the kernel could still produce for this flow: those taking the same ECMP
    // next hops as the matched run (see ecmpKey); only statistic rules vary between tries.
    reachable = new Set(
      c.runs
        .filter((r) => r.probability > 0 && ecmpKey(r.choices) === ecmpKey(c.run.choices))
        .map((r) => (r.outcome.kind === 'answered' ? r.outcome.host : r.outcome.kind)),
    );
    if (reachable.size <= 1 || seen.size > 1) break;
  }
  if (reachable.size > 1)
    expect(
      seen.size,
      `only ${[...seen].join(', ')} answered; the engine allows ${[...reachable].join(', ')}`,
    ).toBeGreaterThan(1);
  tally.probes++;
}

/**
 * Variants with a node in kube-proxy's IPVS mode cannot be checked here: the kernel this suite
 * runs on has no IPVS module (ip_vs), so the engine's IPVS results stay modelled from the kernel
 * and kube-proxy sources (src/engine/ipvs, src/kube/ipvs: checked against kube-proxy's tests).
 */
const IPVS_SKIP =
  'IPVS mode is modelled, not kernel-checked: this kernel has no IPVS module (ip_vs)';

function usesIpvs(c: BuiltCluster | null): boolean {
  return c !== null && c.spec.nodes.some((n) => kubeProxyOf(c.spec, n).mode === 'ipvs');
}

for (const sc of scenarioCases(DIR)) {
  describeKernel(sc.file, () => {
    const labs = new LabReuse();
    afterAll(() => labs.close());
    total.files++;

    const modes = new Set(sc.variants.map((v) => v.mode));
    for (const v of sc.variants) {
      const name = `${v.id ?? '(base)'}${modes.size > 1 ? ` [${v.mode}]` : ''}`;
      if (usesIpvs(v.cluster)) {
        lines.push(`${sc.file} [${name}]: ${v.probes.length} probes skipped (${IPVS_SKIP})`);
        describe.skip(`${name} [skipped: ${IPVS_SKIP}]`, () => {
          for (const def of v.probes) it(def.name ?? `${def.from} -> ${def.to}`, () => {});
        });
        continue;
      }
      describe(name, () => {
        let lab: KernelLab | null = null;
        const tally: Tally = { probes: 0, tries: 0, events: 0, randomPorts: 0, rerun: 0 };
        beforeAll(async () => {
          if (v.cluster && sc.errors.length === 0 && v.errors.length === 0)
            lab = await labs.get(kernelSpec(v.cluster), (spec) =>
              KernelLab.start(spec, labOptions(spec)),
            );
        });
        afterAll(() => {
          total.variants++;
          total.probes += tally.probes;
          total.tries += tally.tries;
          total.events += tally.events;
          total.randomPorts += tally.randomPorts;
          total.rerun += tally.rerun;
          lines.push(
            `${sc.file} [${name}]: ${tally.probes}/${v.probes.length} probes, ${tally.tries} connections, ${tally.events} rule events, ${tally.randomPorts} random source ports${tally.rerun ? `, ${tally.rerun} run again after lost trace lines` : ''}`,
          );
        });

        it('builds without errors', () => {
          expect([...sc.errors, ...v.errors]).toEqual([]);
          expect(lab).not.toBe(null);
        });

        for (const def of v.probes) {
          it(def.name ?? `${def.from} -> ${def.to}`, async () => {
            if (!lab || !v.cluster) throw new Error('no lab: the variant did not build');
            await proveProbe(lab, v.cluster, def, tally);
          });
        }
      });
    }
  });
}

afterAll(() => {
  if (total.tries === 0) return;
  // Kernel = expectation = engine for every probe counted here (a failing probe is not).
  process.stdout.write(
    `\nscenarios on the real kernel: ${total.files} files, ${total.variants} variants, ${total.probes} probes proven (${total.tries} connections, ${total.events} rule events compared, ${total.randomPorts} source ports drawn by --random-fully, ${total.rerun} connections run again after the kernel's trace lost lines)\n${lines.map((l) => `  ${l}`).join('\n')}\n`,
  );
});
