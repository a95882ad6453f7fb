/**
 * Issue 12 figures: re-simulation after an edit at 1,000 and 5,000 Services (runLab, as the
 * worker runs it), the cold first run, and `hookpath run` on a 5,000-Service scenario as a whole
 * process (with the start-up of node + tsx alone, measured apart).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLab } from '../cluster/lab.ts';
import { bigManifests } from './big-manifests.ts';

const SCENARIO = 'scenarios/vip22-sshd-or-service.yaml';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function editFigures(services: number, budget: number): void {
  const scenario = readFileSync(SCENARIO, 'utf8');
  const text = bigManifests(services, 1);
  let t0 = performance.now();
  const first = runLab({ scenario, manifests: text, validate: false });
  const cold = performance.now() - t0;
  if (!first.ok) throw new Error(first.diagnostics[0]?.message);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const edited = text.replace('name: svc-7\n', `name: svc-7\n  labels: { edit: "${i}" }\n`);
    t0 = performance.now();
    runLab({ scenario, manifests: edited, validate: false });
    times.push(performance.now() - t0);
  }
  console.log(
    `re-simulation after an edit, ${services} Services: median ${median(times).toFixed(0)} ms (runs: ${times.map((t) => t.toFixed(0)).join(', ')}; cold first run ${cold.toFixed(0)} ms)   budget ${budget} ms`,
  );
}

function cliFigures(services: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'hookpath-bench-'));
  const file = join(dir, 'big.yaml');
  const base = readFileSync(SCENARIO, 'utf8');
  // The scenario's cluster and probes, with the big manifests in place of its own.
  const manifests = bigManifests(services, 1)
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  const text = base
    .replace(/^manifests: \|\n(?: {2}.*\n|\n)*/m, `manifests: |\n${manifests}\n`)
    .replace(
      /^variants:[\s\S]*$/m,
      'probes:\n  - { name: node ip, from: client/laptop, to: node/cp-1:22, expect: { answeredBy: node/cp-1/sshd } }\n',
    );
  writeFileSync(file, text);
  const time = (args: string[]) => {
    const t0 = performance.now();
    try {
      execFileSync('node', args, { stdio: 'pipe', timeout: 120_000 });
    } catch (e) {
      console.log(`  (${args.join(' ')} failed: ${(e as Error).message.split('\n')[0]})`);
    }
    return performance.now() - t0;
  };
  const startup = time(['--import', 'tsx', '-e', '0']);
  const run = time(['src/cli/bin.mjs', 'run', file]);
  console.log(
    `hookpath run on a ${services}-Service scenario: ${run.toFixed(0)} ms as a whole process, of which ~${startup.toFixed(0)} ms is node + tsx start-up alone   budget 2000 ms`,
  );
}

export function benchLabEdits(): void {
  editFigures(1000, 300);
  editFigures(5000, 1000);
  cliFigures(5000);
}
