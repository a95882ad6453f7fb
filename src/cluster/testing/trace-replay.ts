/**
 * Replays a captured real trace against the engine's run of the same scenario probe: every real
 * packet that ran a rule of the ruleset under test must align, on the traced node, with one of
 * the engine's packets without a disagreement.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  valueOf,
  isDisagreement,
  parseRealTrace,
  replayPacket,
  type Alignment,
  type ParsedTrace,
} from '../../engine/index.ts';
import { runLab } from '../lab.ts';
import { loadScenario } from '../scenario.ts';
import type { TraceFixture } from './trace-fixtures.ts';

const SCENARIOS = join(import.meta.dirname, '../../../scenarios');
export const FIXTURE_DIR = join(import.meta.dirname, 'trace-fixtures');

export function fixtureText(file: string): string {
  return readFileSync(join(FIXTURE_DIR, file), 'utf8');
}

/** The engine's events for the fixture's probe (the scenario as the lab runs it). */
export function fixtureEvents(f: TraceFixture) {
  const text = readFileSync(join(SCENARIOS, f.scenario), 'utf8');
  const scenario = valueOf(loadScenario(text));
  const variant = scenario?.def.variants?.find((v) => v.id === f.variant);
  const probe = variant?.probes?.find((p) => p.name === f.probe);
  if (!probe) throw new Error(`${f.scenario} [${f.variant}] has no probe "${f.probe}"`);
  const r = runLab({
    scenario: text,
    variant: f.variant,
    mode: f.mode,
    path: { from: probe.from, to: probe.to, ...(probe.proto ? { proto: probe.proto } : {}) },
  });
  const run = r.runs[0];
  if (!r.ok || !run) throw new Error(`${f.scenario} [${f.variant}] does not run`);
  return run.events;
}

export interface FixtureReplay {
  readonly parsed: ParsedTrace;
  readonly alignments: readonly Alignment[];
  readonly report: { readonly agrees: boolean; readonly errors: number };
  /** Side by side, for failure messages. */
  readonly text: string;
}

export function replayFixture(f: TraceFixture, trace: string): FixtureReplay {
  const events = fixtureEvents(f);
  const parsed = parseRealTrace(trace);
  const compared = parsed.packets.filter((p) => p.steps.some((s) => !s.tracing));
  const alignments = compared.map((p) => replayPacket(p, events, { host: f.host }));
  const lines = alignments.flatMap((a, k) => [
    `packet ${compared[k]?.id} ~ ${a.host} packet ${a.packetId}:`,
    ...a.rows.map(
      (r) =>
        `  ${isDisagreement(r.status) ? '!' : ' '} ${r.status.padEnd(8)} ${(r.real ? `${r.real.table}:${r.real.chain} ${r.real.kind} ${r.real.verdict}` : '').padEnd(60)} | ${r.sim ? `${r.sim.table}:${r.sim.chain} ${r.sim.kind} ${r.sim.verdict}` : ''}`,
    ),
  ]);
  return {
    parsed,
    alignments,
    report: {
      agrees: compared.length > 0 && alignments.every((a) => a.first === null),
      errors: parsed.errors.length,
    },
    text: lines.join('\n'),
  };
}
