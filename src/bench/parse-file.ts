/**
 * The engine's whole-process figure: read one iptables-save file (or, with `--nft`, an nft
 * ruleset), parse and validate it, exit. `npm run bench` runs this bundled file with node,
 * alternating with `iptables-restore --test` (or `nft -c -f`) on the same file, so both
 * numbers include process start-up and reading the file. The file is read as the CLI reads
 * `--rules FILE` (read-input.ts), with the CLI's heap (heap.ts).
 * Exit 0 when the file loads, 2 when it has errors (as the references exit non-zero). With
 * `--rss`, the process's peak resident memory (kB) is written to stderr before it exits.
 */
import { exitWhenWritten } from '../cli/exit.ts';
import { keepNurserySmall } from '../cli/heap.ts';
import { RULES_LIMIT, readInput } from '../cli/read-input.ts';
import { parseNftRuleset, parseRuleset } from '../engine/index.ts';

// As the CLI starts (main.ts).
keepNurserySmall();
const nft = process.argv.includes('--nft');
const rss = process.argv.includes('--rss');
const file = process.argv.slice(2).find((a) => a !== '--nft' && a !== '--rss');
if (!file) {
  process.stderr.write('usage: node parse-file.js [--nft] [--rss] FILE\n');
  process.exit(2);
}
const text = readInput(file, 'the rules file', RULES_LIMIT);
const parsed = nft ? parseNftRuleset(text) : parseRuleset(text);
if (!parsed.ok) {
  const d = parsed.diagnostics.find((x) => x.severity === 'error');
  process.stderr.write(`${file}:${d?.line}:${d?.column}: ${d?.message}\n`);
  process.exit(2);
}
if (rss) process.stderr.write(`maxrss ${process.resourceUsage().maxRSS}\n`);
// As the CLI ends (main.ts): without tearing the heap down.
exitWhenWritten();
