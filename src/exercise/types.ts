/**
 * Workshop exercises (exercises/*.yaml): a starting cluster, goals checked on simulated probes and
 * their traces, hints and reference answers. Pure data; reports cross the Web Worker boundary.
 */
import type { ClusterPatch, ClusterSpec } from '../cluster/scenario.ts';
import type { I18nText } from '../cluster/types.ts';
import type { Diagnostic, Hook, TableName, Verdict } from '../engine/index.ts';

export type OutcomeName = 'answered' | 'refused' | 'timeout';
/** What a learner may change: Kubernetes objects, host rules (and sysctls), kube-proxy settings. */
export type Editable = 'manifests' | 'hostRules' | 'kubeProxy';
export const EDITABLE: readonly Editable[] = ['manifests', 'hostRules', 'kubeProxy'];

/** Which part of the lab's domain an exercise teaches (DOMAIN.md's sections). */
export const TOPICS = [
  'hook-order',
  'source-ip',
  'external-traffic-policy',
  'internal-traffic-policy',
  'load-balancing',
  'topology',
  'nodeport-exposure',
  'host-rules',
  'debugging',
] as const;
export type Topic = (typeof TOPICS)[number];
export type Difficulty = 'beginner' | 'intermediate' | 'advanced';

type OneOrMore<T> = T | readonly T[];

/**
 * One step of a trace a goal looks for. Every field given must match; hosts may be `$from`
 * (the sender), `$from-node` (the sender's node) or `$to-node` (the node the destination is on).
 */
export interface StepMatch {
  readonly host?: OneOrMore<string>;
  readonly hook?: OneOrMore<Hook>;
  readonly table?: OneOrMore<TableName>;
  /** Chain name; a trailing `*` matches a prefix (KUBE-EXT-*). */
  readonly chain?: string;
  /** Text the rule contains (a comment, a match, a port). */
  readonly rule?: string;
  readonly verdict?: OneOrMore<Verdict>;
  /** The rule's target: DNAT, SNAT, MASQUERADE, REJECT, DROP, MARK, or a chain. */
  readonly target?: OneOrMore<string>;
  /** The probe's first packet, the packets answering it, or any (default). */
  readonly packet?: 'request' | 'reply' | 'any';
}

export interface GoalExpect {
  readonly outcome?: OneOrMore<OutcomeName>;
  readonly answeredBy?: string;
  readonly srcSeen?: string;
  readonly reply?: string;
  readonly split?: Readonly<Record<string, number>>;
}

export interface GoalDef {
  readonly id: string;
  /** The sentence the learner reads (✓ or ✗ beside it). */
  readonly text: I18nText;
  /** Senders × destinations: the goal must hold for every pair. */
  readonly from: OneOrMore<string>;
  readonly to: OneOrMore<string>;
  readonly proto?: 'tcp' | 'udp';
  readonly expect?: GoalExpect;
  /** Steps some event of every run must match. */
  readonly passes?: readonly StepMatch[];
  /** Steps no event of any run may match. */
  readonly never?: readonly StepMatch[];
}

export interface StartDef {
  /** A scenario of scenarios/ by id (file name without .yaml); or give `cluster` in full. */
  readonly scenario?: string;
  readonly variant?: string;
  /** With a scenario: a patch (nodes by name); without: the whole cluster. */
  readonly cluster?: ClusterSpec | ClusterPatch;
  /** The editor's starting text; the scenario's (variant's) manifests otherwise. */
  readonly manifests?: string;
  /** Objects the learner sees but may not change. */
  readonly fixedManifests?: string;
  readonly editable?: readonly Editable[];
}

export interface SolutionDef {
  readonly title: I18nText;
  /** The whole answer, as the learner's editor would hold it. */
  readonly manifests: string;
  readonly why?: I18nText;
}

export interface ExerciseDef {
  readonly id?: string;
  readonly order?: number;
  readonly title: I18nText;
  readonly task: I18nText;
  readonly takeaway: I18nText;
  readonly topics: readonly Topic[];
  readonly difficulty: Difficulty;
  readonly minutes: number;
  readonly start: StartDef;
  readonly goals: readonly GoalDef[];
  readonly hints: readonly I18nText[];
  readonly solutions: readonly SolutionDef[];
}

/** One sender × destination pair of a goal that does not hold. */
export interface GoalFailure {
  readonly from: string;
  readonly to: string;
  /** What the goal wanted that did not happen. */
  readonly why: I18nText;
  /** What the packet did instead, told from the trace. */
  readonly instead: I18nText;
}

export interface GoalReport {
  readonly id: string;
  readonly text: I18nText;
  readonly pass: boolean;
  /** How many sender × destination pairs were checked. */
  readonly pairs: number;
  readonly failures: readonly GoalFailure[];
}

export interface ExerciseReport {
  /** False when the answer has errors; `diagnostics` say where, and no goal is checked. */
  readonly ok: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly goals: readonly GoalReport[];
  /** Every goal holds. */
  readonly solved: boolean;
}

/** What the worker needs to check an answer: the exercise, its scenario, the learner's text. */
export interface CheckInput {
  readonly exercise: string;
  /** Scenario texts by id: at least the one the exercise starts from (`start.scenario`). */
  readonly scenarios?: Readonly<Record<string, string>>;
  readonly answer: string;
}
