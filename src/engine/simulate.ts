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
  /** True when a limit stopped the enumeration: `runs` are then only some of the outcomes. */
  readonly truncated: boolean;
  /** Sum of the probabilities of `runs`: 1 when complete (up to rounding). */
  readonly covered: number;
  /** Branches found but not followed (each holds at least one more outcome); 0 when complete. */
  readonly notComputed: number;
  /** Which limit stopped the enumeration (512 followed branches, ...), or null. */
  readonly stoppedBy: EnumerationLimit | null;
}

export interface EnumerationLimit {
  readonly limit: 'branches' | 'steps' | 'waiting';
  readonly count: number;
}

/** `512 branches`, `250,000 trace steps`: the limit in English, for the CLI. */
export function limitText(l: EnumerationLimit): string {
  const n = l.count.toLocaleString('en');
  return l.limit === 'branches'
    ? `${n} branches`
    : l.limit === 'steps'
      ? `${n} trace steps`
      : `${n} branches waiting to be followed`;
}

/**
 * Bounds of one enumeration, so any ruleset ends in bounded time and memory: followed branches,
 * trace steps kept (events and random choices of every run), branches waiting to be followed.
 */
export const ENUMERATION_LIMITS = { runs: 512, steps: 250_000, pending: 100_000 };

/**
 * Follows every branch: each returned run has the probability of its choices, and together they
 * sum to 1 (e.g. three endpoints at 1/3 each). `state` is not modified. Past a limit it stops and
 * says so (`truncated`, `covered`, `notComputed`) rather than guess the rest.
 */
export function enumerateOutcomes(
  net: Network,
  probe: ProbeSpec,
  options: { state?: NetworkState; limit?: number; steps?: number } = {},
): Enumeration {
  const limit = options.limit ?? ENUMERATION_LIMITS.runs;
  const maxSteps = options.steps ?? ENUMERATION_LIMITS.steps;
  const base = options.state ?? newNetworkState();
  // A pending branch is the first `depth` choices of run `parent`, then option `alt`: three
  // numbers instead of a copied prefix, so thousands of random rules do not exhaust memory.
  const pending: { parent: number; depth: number; alt: number }[] = [];
  let head = 0;
  const runs: Simulation[] = [];
  let steps = 0;
  let covered = 0;
  let stoppedBy: EnumerationLimit | null = null;
  let next: number[] | null = [];
  while (next) {
    const parent = runs.length;
    const chooser = scriptedChooser(next, (depth, alt) => pending.push({ parent, depth, alt }));
    const r = runProbe(net, cloneNetworkState(base), probe, chooser);
    const probability = chooser.taken.reduce((p, c) => p * c.probability, 1);
    runs.push({ outcome: r.outcome, events: r.events, choices: chooser.taken, probability });
    covered += probability;
    steps += r.events.length + chooser.taken.length;
    next = null;
    if (head >= pending.length) break;
    if (runs.length >= limit) stoppedBy = { limit: 'branches', count: limit };
    else if (steps >= maxSteps) stoppedBy = { limit: 'steps', count: maxSteps };
    else if (pending.length - head > ENUMERATION_LIMITS.pending)
      stoppedBy = { limit: 'waiting', count: ENUMERATION_LIMITS.pending };
    if (stoppedBy) break;
    const b = pending[head++] as { parent: number; depth: number; alt: number };
    const from = (runs[b.parent] as Simulation).choices;
    next = [];
    for (let d = 0; d < b.depth; d++) next.push((from[d] as Choice).index);
    next.push(b.alt);
  }
  const notComputed = pending.length - head;
  return {
    runs,
    truncated: notComputed > 0,
    covered: notComputed > 0 ? Math.min(covered, 1) : 1,
    notComputed,
    stoppedBy: notComputed > 0 ? stoppedBy : null,
  };
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
