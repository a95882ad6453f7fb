/**
 * The engine's whole-process figure: read one iptables-save file (or, with `--nft`, an nft
 * ruleset), parse and validate it, exit. `npm run bench` runs this bundled file with node,
 * alternating with `iptables-restore --test` (or `nft -c -f`) on the same file, so both
 * numbers include process start-up and reading the file.
 * Exit 0 when the file loads, 2 when it has errors (as the references exit non-zero).
 */
import { readFileSync } from 'node:fs';
import { parseNftRuleset, parseRuleset } from '../engine/index.ts';

const nft = process.argv.includes('--nft');
const file = process.argv.slice(2).find((a) => a !== '--nft');
if (!file) {
  process.stderr.write('usage: node parse-file.js [--nft] FILE\n');
  process.exit(2);
}
const text = readFileSync(file, 'utf8');
const parsed = nft ? parseNftRuleset(text) : parseRuleset(text);
if (!parsed.ok) {
  const d = parsed.diagnostics.find((x) => x.severity === 'error');
  process.stderr.write(`${file}:${d?.line}:${d?.column}: ${d?.message}\n`);
  process.exit(2);
}
