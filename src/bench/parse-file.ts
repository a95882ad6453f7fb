/**
 * The engine's whole-process figure: read one iptables-save file, parse and validate it, exit.
 * `npm run bench` runs this bundled file with node, alternating with `iptables-restore --test`
 * on the same file, so both numbers include process start-up and reading the file. The file is
 * read as the CLI reads `--rules FILE` (read-input.ts).
 * Exit 0 when the file loads, 2 when it has errors (as iptables-restore exits non-zero).
 */
import { RULES_LIMIT, readInput } from '../cli/read-input.ts';
import { parseRuleset } from '../engine/index.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node parse-file.js FILE\n');
  process.exit(2);
}
const parsed = parseRuleset(readInput(file, 'the rules file', RULES_LIMIT));
if (!parsed.ok) {
  const d = parsed.diagnostics.find((x) => x.severity === 'error');
  process.stderr.write(`${file}:${d?.line}:${d?.column}: ${d?.message}\n`);
  process.exit(2);
}
