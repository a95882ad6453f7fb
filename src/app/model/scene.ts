/**
 * Everything the diagram shows at one step, computed without a DOM: the token's path, the trail
 * already travelled, which host, hook and table are active, the badges rules left behind, the
 * branch percentages, and how the packet ended.
 */
import type { LabView } from '../worker/view.ts';
import type { Packet } from '../../engine/packet.ts';
import { layoutDiagram, type DiagramLayout } from './layout.ts';
import { motionPath } from './motion.ts';
import type { Point, RowName } from './geometry.ts';
import type { Field } from './packet.ts';
import type { Step } from './timeline.ts';

export interface TrailSegment {
  readonly step: number;
  readonly points: readonly Point[];
  readonly direction: 'request' | 'reply';
}

export interface StripMark {
  readonly host: string;
  readonly hook: string;
  readonly row: RowName;
  /** The rule's target as kube-proxy users know it (DNAT, MASQ, DROP, MARK...), or the conntrack entry. */
  readonly badge: string | null;
  readonly current: boolean;
}

export interface SceneStep {
  readonly index: number;
  readonly host: string;
  readonly at: Point;
  readonly path: readonly Point[];
  readonly packet: Packet;
  readonly changed: readonly Field[];
  readonly direction: 'request' | 'reply';
  readonly hook: string | null;
  readonly row: RowName | null;
  readonly process: string | null;
  readonly end: 'drop' | 'reject' | null;
}

export interface Scene {
  readonly layout: DiagramLayout;
  readonly trail: readonly TrailSegment[];
  readonly steps: readonly SceneStep[];
  /** For probabilistic runs: where each run ends and with which probability. */
  readonly branches: readonly {
    readonly host: string;
    readonly probability: number;
    readonly run: number;
  }[];
}

/** Builds the scene of one run (the layout covers every run, so branches share one drawing). */
export function buildScene(result: LabView, steps: readonly Step[]): Scene | null {
  if (!result.cluster) return null;
  const layout = layoutDiagram({
    cluster: result.cluster,
    runs: result.runs,
    rules: result.rules,
    hooks: result.hooks,
  });
  const sceneSteps: SceneStep[] = [];
  const trail: TrailSegment[] = [];
  steps.forEach((s, i) => {
    const prev = i > 0 ? (steps[i - 1] ?? null) : null;
    const path = motionPath(layout, prev, s);
    const at = path[path.length - 1] ?? { x: 0, y: 0 };
    trail.push({ step: i, points: path, direction: s.direction });
    sceneSteps.push({
      index: i,
      host: s.host,
      at,
      path,
      packet: s.event.packet,
      changed: s.changed,
      direction: s.direction,
      hook: s.slot.kind === 'hook' ? s.slot.hook : null,
      row: s.slot.kind === 'hook' ? s.slot.row : null,
      process: s.slot.kind === 'local' ? s.slot.process : null,
      end: s.end,
    });
  });
  const branches =
    result.runs.length > 1
      ? result.runs.map((r, run) => ({ host: endHost(r.outcome), probability: r.probability, run }))
      : [];
  return { layout, trail, steps: sceneSteps, branches };
}

function endHost(o: LabView['runs'][number]['outcome']): string {
  return 'host' in o && o.host ? o.host : '';
}

/** Badges on rows for every rule or kernel step that acted up to `step` (the current one flagged). */
export function stripMarks(steps: readonly Step[], step: number): StripMark[] {
  const marks = new Map<string, StripMark & { rule: string | null }>();
  for (const s of steps.slice(0, step + 1)) {
    if (s.slot.kind !== 'hook' || !s.slot.row) continue;
    const badge = badgeOfStep(s);
    const e = s.event;
    const ruleLike = e.type === 'rule' || e.type === 'policy';
    // Only steps that decided something mark a row (entering a table does not).
    if (badge === undefined && !ruleLike) continue;
    const key = `${s.host}/${s.slot.hook}/${s.slot.row}`;
    const prev = marks.get(key);
    const rule = ruleLike ? (badge ?? prev?.rule ?? null) : (prev?.rule ?? null);
    const current = s.index === step;
    marks.set(key, {
      host: s.host,
      hook: s.slot.hook,
      row: s.slot.row,
      // What a rule did stays on its row; what conntrack did shows while it is the current step.
      badge: current ? (badge ?? rule) : (rule ?? badge ?? prev?.badge ?? null),
      current,
      rule,
    });
  }
  return [...marks.values()].map(({ rule: _rule, ...m }) => m);
}

const BADGES: Readonly<Record<string, string>> = {
  DNAT: 'DNAT',
  SNAT: 'SNAT',
  MASQUERADE: 'MASQ',
  REDIRECT: 'REDIR',
  DROP: 'DROP',
  REJECT: 'REJECT',
  MARK: 'MARK',
  NOTRACK: 'NOTRACK',
};

/** The short badge a step leaves on its row; undefined when the step leaves none. */
function badgeOfStep(s: Step): string | null | undefined {
  const e = s.event;
  switch (e.type) {
    case 'rule':
      if (e.target && BADGES[e.target]) return BADGES[e.target] ?? null;
      return e.verdict === 'DROP' ? 'DROP' : null;
    case 'policy':
      return e.verdict === 'DROP' ? 'DROP' : null;
    case 'conntrack':
      if (e.connId === null) return e.state === 'UNTRACKED' ? 'NOTRACK' : e.state;
      if (e.action === 'confirm') return `#${e.connId} ✓`;
      if (e.action === 'nat') return `#${e.connId} ⇄`;
      return `#${e.connId} ${e.dir === 'reply' ? '←' : '→'}`;
    case 'route':
      return e.decision === 'reroute'
        ? `↻ ${e.dev ?? ''}`.trim()
        : e.decision === 'drop'
          ? 'DROP'
          : undefined;
    case 'ipvs':
      // VS/NAT rewrites the destination to the real server; a reply is translated back.
      if (e.action === 'reply') return '⇄';
      if (e.action === 'no-dest') return 'REJECT';
      return e.realServer ? 'DNAT' : null;
    default:
      return undefined;
  }
}
