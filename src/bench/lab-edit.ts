/**
 * Issue 12 figures: the lab's worker on big clusters (a cold first run in a fresh process,
 * re-simulation after an edit) and `hookpath run` on a 5,000-Service scenario as a whole process,
 * with the CLI's start-up alone. Whole processes alternate and print median and spread; the load
 * average is printed first, since the machine may be shared, and CPU times beside wall times (on
 * an overloaded machine the wall time is that many times longer than the work).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLab } from '../cluster/lab.ts';
import { readPlainYaml } from '../kube/manifests/plain-yaml.ts';
import { bigManifests } from './big-manifests.ts';

const SCENARIO = 'scenarios/vip22-sshd-or-service.yaml';
const COLD = 'node_modules/.cache/hookpath-bench-cold/cold-lab.js';
const PHASES = 'node_modules/.cache/hookpath-bench-phases/phases.js';
const CLI = 'dist-cli/main.js';
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)] as number;
const spread = (xs: number[]) =>
  `${Math.round(sorted(xs)[0] as number)}-${Math.round(sorted(xs)[xs.length - 1] as number)}`;

/** Edits a user makes: a label (the rules stay), a port (one Service's rules change). */
function edited(text: string, i: number): string {
  return i % 2
    ? text.replace('name: svc-7\n', `name: svc-7\n  labels: { edit: "${i}" }\n`)
    : text.replace(
        'name: svc-7\nspec:\n  selector: { app: app-7 }\n  ports:\n    - { name: http, port: 80,',
        `name: svc-7\nspec:\n  selector: { app: app-7 }\n  ports:\n    - { name: http, port: ${8000 + i},`,
      );
}

export function editFigures(services: number, budget: number): void {
  const scenario = readFileSync(SCENARIO, 'utf8');
  const text = bigManifests(services, 1);
  const first = runLab({ scenario, manifests: text, validate: false });
  if (!first.ok) throw new Error(first.diagnostics[0]?.message);
  const times: number[] = [];
  const cpu: number[] = [];
  // Odd edits (a label) leave kube-proxy's rules as they were; even ones (a port) change them.
  const kinds: Record<'label' | 'port', number[]> = { label: [], port: [] };
  for (let i = 1; i <= 8; i++) {
    const next = edited(text, i);
    if (next === text) throw new Error('the bench edit did not apply');
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    runLab({ scenario, manifests: next, validate: false });
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    kinds[i % 2 ? 'label' : 'port'].push((c.user + c.system) / 1000);
  }
  console.log(
    `re-simulation after an edit, ${services} Services: median ${median(times).toFixed(0)} ms (${spread(times)} over ${times.length} edits), CPU ${median(cpu).toFixed(0)} ms (a label: ${median(kinds.label).toFixed(0)} ms, a port: ${median(kinds.port).toFixed(0)} ms)   budget ${budget} ms`,
  );
}

/** Runs `node args` n times per variant, alternating; wall times. */
function alternate(variants: string[][], n: number): number[][] {
  const out = variants.map(() => [] as number[]);
  for (let i = 0; i < n; i++)
    variants.forEach((args, k) => {
      const t0 = performance.now();
      execFileSync('node', args, { stdio: 'pipe', timeout: 120_000 });
      (out[k] as number[]).push(performance.now() - t0);
    });
  return out;
}

function coldFigures(): void {
  for (const [s, r, budget] of [
    [5000, 1, 1500],
    [400, 100, 8000],
  ] as const) {
    const runs: { ms: number; cpuMs: number; cloneMs: number; bytes: number }[] = [];
    for (let i = 0; i < 3; i++)
      runs.push(
        JSON.parse(
          execFileSync('node', [COLD, String(s), String(r)], {
            encoding: 'utf8',
            timeout: 120_000,
          }),
        ),
      );
    const ms = runs.map((x) => x.ms);
    const cpu = median(runs.map((x) => x.cpuMs));
    console.log(
      `cold first run in a fresh worker-like process, ${s} Services x ${r}: median ${median(ms).toFixed(0)} ms (${spread(ms)}), CPU ${cpu.toFixed(0)} ms, result sent to the page ${((runs[0]?.bytes ?? 0) / 1e6).toFixed(2)} MB as JSON, clone ${median(runs.map((x) => x.cloneMs)).toFixed(0)} ms   budget ${budget} ms`,
    );
    phaseFigures(s, r);
  }
}

/** Where a cold run's CPU time goes: the median of three fresh processes, phase by phase. */
function phaseFigures(services: number, replicas: number): void {
  const runs: { phases: Record<string, number>; cpuMs: number }[] = [];
  for (let i = 0; i < 3; i++)
    runs.push(
      JSON.parse(
        execFileSync('node', [PHASES, String(services), String(replicas)], {
          encoding: 'utf8',
          timeout: 120_000,
        }),
      ),
    );
  const names = Object.keys(runs[0]?.phases ?? {});
  const of = (n: string) => median(runs.map((x) => x.phases[n] ?? 0));
  const total = names.reduce((a, n) => a + (n.startsWith('walk, cold') ? 0 : of(n)), 0);
  console.log(
    `  its phases, CPU ms (median of 3 processes): ${names.map((n) => `${n} ${of(n)}`).join(', ')}; the engine's iptables parse is ${((100 * of('parse')) / Math.max(1, total)).toFixed(0)} % of the phases' sum (the cold walk is generate + parse + the walk)`,
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
  yamlDocumentFigures(text, services);
  const [node, help, tsx] = alternate(
    [
      ['-e', '0'],
      [CLI, 'help'],
      ['--import', 'tsx', '-e', '0'],
    ],
    7,
  ) as number[][];
  console.log(
    `CLI start-up (hookpath help, prebuilt): median ${median(help as number[]).toFixed(0)} ms (${spread(help as number[])}); node alone ${median(node as number[]).toFixed(0)} ms, node + tsx ${median(tsx as number[]).toFixed(0)} ms   budget 300 ms`,
  );
  const [run] = alternate([['src/cli/bin.mjs', 'run', file]], 5) as number[][];
  console.log(
    `hookpath run on a ${services}-Service scenario (${(text.length / 1e6).toFixed(1)} MB), whole process: median ${median(run as number[]).toFixed(0)} ms (${spread(run as number[])})${cpuOfRun(file)}   budget 2000 ms`,
  );
}

/** Median ms of reading `text` with the fast YAML reader, 5 times (a new string each time). */
function readTimes(text: string): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = `${text}#${i}\n`;
    const t0 = performance.now();
    if (readPlainYaml(t) === undefined) throw new Error('the fast reader declined the bench text');
    times.push(performance.now() - t0);
  }
  return median(times);
}

/**
 * Big single YAML documents: the scenario file `hookpath run` reads (its manifests one block
 * scalar), and one document listing every Service. Each plain scalar's comment search once ran
 * to the end of the text: ~80 ms for the scenario, 23 s for the list.
 */
function yamlDocumentFigures(scenario: string, services: number): void {
  const items = Array.from(
    { length: services },
    (_, s) =>
      `  - apiVersion: v1\n    kind: Service\n    metadata:\n      name: svc-${s}\n    spec:\n      selector: { app: app-${s} }\n      ports:\n        - { name: http, port: 80, targetPort: http }`,
  );
  const list = `apiVersion: v1\nkind: List\nitems:\n${items.join('\n')}\n`;
  console.log(
    `one YAML document, fast reader: the ${services}-Service scenario file (${(scenario.length / 1e6).toFixed(1)} MB) median ${readTimes(scenario).toFixed(0)} ms; ${services} Services in one list (${(list.length / 1e6).toFixed(1)} MB) median ${readTimes(list).toFixed(0)} ms`,
  );
}

/** Prints the process's CPU time (all its threads) as it exits. */
const CPU_AT_EXIT =
  'data:text/javascript,process.on("exit",()=>{const c=process.cpuUsage();process.stderr.write(`cpu ${(c.user+c.system)/1000}\\n`)})';

/** `, CPU N ms`: the median CPU time of three more `hookpath run` processes. */
function cpuOfRun(file: string): string {
  const cpu: number[] = [];
  for (let i = 0; i < 3; i++) {
    const { stderr } = spawnSync(
      'node',
      ['--import', CPU_AT_EXIT, 'src/cli/bin.mjs', 'run', file],
      { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 },
    );
    const m = /^cpu ([\d.]+)$/m.exec(stderr);
    if (m) cpu.push(Number(m[1]));
  }
  return cpu.length ? `, CPU ${median(cpu).toFixed(0)} ms` : '';
}

/**
 * The page's figures (main-thread tasks while pasting and typing, the first diagram with a saved
 * edit) come from Chromium: e2e/freeze.spec.ts prints them; run here on the built site.
 */
function browserFigures(): void {
  if (process.env.BENCH_NO_BROWSER) return;
  // Playwright's own command line, run by this node (no npx: .ci/run installs no other program).
  const cli = 'node_modules/@playwright/test/cli.js';
  const r = spawnSync(process.execPath, [cli, 'test', 'e2e/freeze.spec.ts', '--reporter=line'], {
    encoding: 'utf8',
    timeout: 900_000,
  });
  const lines = `${r.stdout}`
    .split('\n')
    .filter((l) => /load [\d.]+x the cores/.test(l) || /^\s+\d+ (passed|failed)/.test(l));
  console.log(`\nthe page, in Chromium (e2e/freeze.spec.ts):\n${lines.join('\n') || r.stderr}`);
}

export function benchLabEdits(): void {
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} on ${cpus().length} cores`,
  );
  coldFigures();
  editFigures(1000, 300);
  editFigures(5000, 1000);
  cliFigures(5000);
  browserFigures();
}
