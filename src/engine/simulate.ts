/** Public entry points: run a probe once (seeded), or enumerate every outcome with its probability. */
import { randomChooser, scriptedChooser, type Choice } from './choice.ts';
import {
  cloneNetworkState,
  newNetworkState,
  runProbe,
  type Network,
  type NetworkState,
  type Outcome,
  type ProbeSpec,
} from './network.ts';
import type { TraceEvent } from './trace.ts';

export interface Simulation {
  readonly outcome: Outcome;
  readonly events: readonly TraceEvent[];
  /** Random decisions taken, in order (statistic branches, ECMP). */
  readonly choices: readonly Choice[];
  /** Probability of this particular run (product of its choices). */
  readonly probability: number;
}

export interface SimulateOptions {
  /** Seed for statistic/ECMP choices; the same seed gives the same run. */
  readonly seed?: number;
  /** State carried over from earlier probes (conntrack, affinity). A fresh one otherwise. Mutated. */
  readonly state?: NetworkState;
}

/** Runs one probe, deciding random branches from the seed. */
export function simulate(
  net: Network,
  probe: ProbeSpec,
  options: SimulateOptions = {},
): Simulation {
  const chooser = randomChooser(options.seed ?? 1);
  const state = options.state ?? newNetworkState();
  const r = runProbe(net, state, probe, chooser);
  const probability = chooser.taken.reduce((p, c) => p * c.probability, 1);
  return { outcome: r.outcome, events: r.events, choices: chooser.taken, probability };
}

export interface Enumeration {
  readonly runs: readonly Simulation[];
  /** True when the branch limit stopped the enumeration early. */
  readonly truncated: boolean;
}

/**
 * Follows every branch: each returned run has the probability of its choices, and together they
 * sum to 1 (e.g. three endpoints at 1/3 each). `state` is not modified.
 */
export function enumerateOutcomes(
  net: Network,
  probe: ProbeSpec,
  options: { state?: NetworkState; limit?: number } = {},
): Enumeration {
  const limit = options.limit ?? 512;
  const base = options.state ?? newNetworkState();
  const pending: number[][] = [[]];
  const runs: Simulation[] = [];
  while (pending.length && runs.length < limit) {
    const prefix = pending.shift() as number[];
    const chooser = scriptedChooser(prefix, (alt) => pending.push(alt));
    const r = runProbe(net, cloneNetworkState(base), probe, chooser);
    const probability = chooser.taken.reduce((p, c) => p * c.probability, 1);
    runs.push({ outcome: r.outcome, events: r.events, choices: chooser.taken, probability });
  }
  return { runs, truncated: pending.length > 0 };
}

/** Groups runs with the same outcome, summing probabilities: `answered by pod-a: 0.5`. */
export function outcomeKey(o: Outcome): string {
  switch (o.kind) {
    case 'answered':
      return `answered ${o.host}/${o.process} src=${o.srcSeen}`;
    case 'delivered':
      return `delivered ${o.host}/${o.process} src=${o.srcSeen}`;
    case 'refused':
      return `refused ${o.via}`;
    case 'forwarded':
      return `forwarded ${o.iface} ${o.packet.dst}:${o.packet.dport}`;
    default:
      return o.kind;
  }
}
