/**
 * The nftables corpus (`kube-proxy-nftables.json`) in `npm run conformance`: cases with a
 * static dump (TestTracePacketV4/V6) are traced through the engine as they are; cases whose
 * rules kube-proxy generates at test time need an nftables-mode generator, given as
 * `generate` (src/kube's, once it exists): without one they are counted as skipped. Every
 * reference dump must load without errors.
 */
import { parseNftRuleset } from '../engine/index.ts';
import { familyOf, type CorpusCase } from './corpus.ts';
import { runNftFlows } from './nft-flows.ts';

export type NftCase = CorpusCase;

export interface NftCorpus {
  readonly cases: readonly NftCase[];
  readonly referenceDumps: readonly { readonly test: string; readonly dump: string }[];
}

/** Produces the nft transaction text kube-proxy would write for a case's setup. */
export type NftGenerator = (c: NftCase) => string;

export interface NftTally {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly dumpsLoaded: number;
  readonly dumpsFailed: number;
}

export function runNftCorpus(
  corpus: NftCorpus,
  log: (line: string) => void,
  verbose = false,
  generate?: NftGenerator,
): NftTally {
  const t: Record<'static' | 'generated', [number, number]> = {
    static: [0, 0],
    generated: [0, 0],
  };
  let skipped = 0;
  for (const c of corpus.cases) {
    let ruleset: string;
    let kind: 'static' | 'generated';
    if (c.dump !== null) {
      ruleset = c.dump;
      kind = 'static';
    } else if (c.setup && generate) {
      ruleset = generate(c);
      kind = 'generated';
    } else {
      skipped += c.flows.length;
      if (verbose) log(`SKIP ${c.id}: ${c.flows.length} flows need the nftables-mode generator`);
      continue;
    }
    for (const r of runNftFlows(ruleset, c.localAddresses, c.flows, familyOf(c))) {
      t[kind][r.pass ? 0 : 1]++;
      if (!r.pass || verbose)
        log(
          `${r.pass ? 'ok  ' : 'FAIL'} ${c.id} / ${r.flow.name}: expected "${r.flow.output}" masq=${r.flow.masq}, got "${r.output}" masq=${r.masq}${r.note ? ` (${r.note})` : ''}`,
        );
    }
  }
  const [sp, sf] = t.static;
  const [gp, gf] = t.generated;
  log(`flows with a static dump: ${sp} passed, ${sf} failed`);
  log(
    `flows with generated rules: ${gp} passed, ${gf} failed, ${skipped} skipped (no nftables generator)`,
  );
  log(`flows: ${sp + gp} passed, ${sf + gf} failed, ${skipped} skipped`);
  let dumpsLoaded = 0;
  let dumpsFailed = 0;
  for (const ref of corpus.referenceDumps) {
    const parsed = parseNftRuleset(ref.dump);
    if (parsed.ok) dumpsLoaded++;
    else {
      dumpsFailed++;
      const d = parsed.diagnostics.find((x) => x.severity === 'error');
      log(`FAIL reference dump of ${ref.test} does not load: line ${d?.line}: ${d?.message}`);
    }
  }
  log(`reference dumps load: ${dumpsLoaded} passed, ${dumpsFailed} failed`);
  return { passed: sp + gp, failed: sf + gf, skipped, dumpsLoaded, dumpsFailed };
}
