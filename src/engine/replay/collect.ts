/**
 * Groups parsed trace lines into packets by trace id, and marks the steps that only switch
 * tracing on. Shared by both monitors' parsers.
 */
import { addFunc } from './stages.ts';
import type { RealHop, RealPacket, RealStage, RealStep } from './types.ts';

interface Group {
  id: string;
  line: number;
  hops: RealHop[];
  steps: RealStep[];
  stages: RealStage[];
}

export class PacketCollector {
  private readonly groups = new Map<string, Group>();

  private group(id: string, line: number): Group {
    let g = this.groups.get(id);
    if (!g) this.groups.set(id, (g = { id, line, hops: [], steps: [], stages: [] }));
    return g;
  }

  hop(id: string, hop: RealHop): void {
    this.group(id, hop.line).hops.push(hop);
  }

  step(id: string, step: RealStep): void {
    this.group(id, step.line).steps.push(step);
  }

  /** A kernel function the packet was seen in (see stages.ts addFunc). */
  func(id: string, line: number, func: string, reason: string | null = null): void {
    addFunc(this.group(id, line).stages, line, func, reason);
  }

  packets(): RealPacket[] {
    const all = [...this.groups.values()];
    const tracing = tracingTables(all.flatMap((g) => g.steps));
    return all.map((g) => ({
      id: g.id,
      line: g.line,
      hops: g.hops,
      stages: g.stages,
      steps: g.steps.map((s) =>
        s.tracing || tracing.has(`${s.family} ${s.table}`) ? { ...s, tracing: true } : s,
      ),
      summary: summaryOf(g.hops[0]?.fields ?? {}),
    }));
  }
}

/**
 * `iptables -t raw -A PREROUTING ... -j TRACE` (iptables-nft turns it into `meta nftrace set 1`,
 * and xtables-monitor prints that back as `-j TRACE`), or nft's own `meta nftrace set 1`.
 */
export function isTracingRule(text: string): boolean {
  return /(^|\s)-j TRACE(\s|$)|\bnftrace set 1\b/.test(text);
}

/** Tables whose every rule in the trace only switches tracing on: a table added to trace. */
function tracingTables(steps: readonly RealStep[]): Set<string> {
  const tracing = new Set<string>();
  const other = new Set<string>();
  for (const s of steps) {
    if (s.kind !== 'rule') continue;
    (s.tracing ? tracing : other).add(`${s.family} ${s.table}`);
  }
  for (const t of other) tracing.delete(t);
  return tracing;
}

function summaryOf(f: Readonly<Record<string, string>>): string {
  const proto = (f.PROTO ?? (f.SPORT !== undefined ? 'tcp/udp' : 'ip')).toLowerCase();
  const at = (a: string | undefined, p: string | undefined) =>
    `${a ?? '?'}${p !== undefined ? `:${p}` : ''}`;
  const flags = f.FLAGS ? ` ${f.FLAGS}` : '';
  const ct = f.CT ? ` (ct ${f.CT})` : '';
  return `${proto} ${at(f.SRC, f.SPORT)} → ${at(f.DST, f.DPORT)}${flags}${ct}`;
}
