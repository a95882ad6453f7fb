/**
 * `npm run conformance [-- path/to/kube-proxy-iptables.json]`: checks the engine against the
 * packet-flow cases of kube-proxy's own test suite and prints `N passed, N failed`.
 * Also checks that every reference dump parses and serializes back without loss.
 */
import { readFileSync } from 'node:fs';
import { parseRuleset, serializeRuleset } from '../engine/index.ts';
import { runFlows, type Flow } from './flows.ts';

interface Case {
  readonly id: string;
  readonly ipFamily: string;
  readonly dump: string | null;
  readonly localAddresses: readonly string[];
  readonly flows: readonly Flow[];
}

interface Corpus {
  readonly cases: readonly Case[];
  readonly referenceDumps: readonly { readonly test: string; readonly dump: string }[];
}

const path = process.argv[2] ?? '../shared/conformance/kube-proxy-iptables.json';
const verbose = process.argv.includes('--verbose');
const corpus = JSON.parse(readFileSync(path, 'utf8')) as Corpus;
let passed = 0;
let failed = 0;
let skipped = 0;
for (const c of corpus.cases) {
  if (c.dump === null) {
    skipped += c.flows.length;
    continue;
  }
  const results = runFlows(c.dump, c.localAddresses, c.flows, c.ipFamily === 'IPv6' ? 6 : 4);
  for (const r of results) {
    if (r.pass) passed++;
    else failed++;
    if (!r.pass || verbose) {
      console.log(
        `${r.pass ? 'ok  ' : 'FAIL'} ${c.id} / ${r.flow.name}: expected "${r.flow.output}" masq=${r.flow.masq}, got "${r.output}" masq=${r.masq}${r.note ? ` (${r.note})` : ''}`,
      );
    }
  }
}
console.log(
  `flows with a static dump: ${passed} passed, ${failed} failed (${skipped} flows need the rule generator)`,
);

let rtPassed = 0;
let rtFailed = 0;
for (const ref of corpus.referenceDumps) {
  const text = ref.dump.replace(/^\n/, '');
  const parsed = parseRuleset(text);
  const back = serializeRuleset(parsed.ruleset);
  if (parsed.ok && back === text) rtPassed++;
  else {
    rtFailed++;
    console.log(
      `FAIL round trip of ${ref.test}: ${parsed.diagnostics.map((d) => `line ${d.line}: ${d.message}`).join('; ')}`,
    );
  }
}
console.log(`reference dumps round trip: ${rtPassed} passed, ${rtFailed} failed`);
process.exitCode = failed || rtFailed ? 1 : 0;
