/**
 * Everything the diagram shows at one step, computed without a DOM: the token's path, the trail
 * already travelled, which host, hook and table are active, the badges rules left behind, the
 * branch percentages, and how the packet ended.
 */
import type { LabResult } from '../../cluster/types.ts';
import type { TableName } from '../../engine/rules/types.ts';
import type { Packet } from '../../engine/packet.ts';
import { layoutDiagram, type DiagramLayout } from './layout.ts';
import { motionPath } from './motion.ts';
import type { Point } from './geometry.ts';
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
  readonly table: TableName;
  /** The rule's target as kube-proxy users know it: DNAT, MASQUERADE, DROP, MARK... */
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
  readonly table: TableName | null;
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
export function buildScene(result: LabResult, steps: readonly Step[]): Scene | null {
  if (!result.cluster) return null;
  const layout = layoutDiagram({ cluster: result.cluster, runs: result.runs, rules: result.rules });
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
      table: s.slot.kind === 'hook' ? s.slot.table : null,
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

function endHost(o: LabResult['runs'][number]['outcome']): string {
  return 'host' in o && o.host ? o.host : '';
}

/** Badges on table strips for every rule that acted up to `step` (the current one flagged). */
export function stripMarks(steps: readonly Step[], step: number): StripMark[] {
  const marks = new Map<string, StripMark>();
  for (const s of steps.slice(0, step + 1)) {
    const e = s.event;
    if (e.type !== 'rule' && e.type !== 'policy') continue;
    const key = `${e.host}/${e.hook}/${e.table}`;
    const badge =
      e.type === 'policy' ? (e.verdict === 'DROP' ? 'DROP' : null) : badgeOf(e.target, e.verdict);
    const prev = marks.get(key);
    marks.set(key, {
      host: e.host,
      hook: e.hook,
      table: e.table,
      badge: badge ?? prev?.badge ?? null,
      current: s.index === step,
    });
  }
  return [...marks.values()];
}

const BADGES = new Set([
  'DNAT',
  'SNAT',
  'MASQUERADE',
  'REDIRECT',
  'DROP',
  'REJECT',
  'MARK',
  'NOTRACK',
]);

function badgeOf(target: string | null, verdict: string): string | null {
  if (target && BADGES.has(target)) return target;
  if (verdict === 'DROP') return 'DROP';
  return null;
}
