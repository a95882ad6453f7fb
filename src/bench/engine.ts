/**
 * The engine's figures (issue 13): parse + validate a kube-proxy-shaped dump as whole processes
 * against `iptables-restore --test` on the same file (alternating runs, median and spread), the
 * in-process parse at 1,000 Services against the reference's whole run, and the first and warm
 * traces after loading 10,000 Services.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchEnv } from '../cli/launch-env.ts';
import { buildNetwork, parseRuleset, simulate, type Packet } from '../engine/index.ts';
import { kubeShapedRuleset, type ShapedRuleset } from './kube-shaped.ts';

/** How the installed `hookpath` starts node (hookpath.sh). */
export const CLI_ENV = launchEnv(process.env);

const ENDPOINTS = 3;

/** Median and spread (min-max) of a list of milliseconds. */
export interface Figure {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function figure(xs: readonly number[]): Figure {
  const s = [...xs].sort((a, b) => a - b);
  return {
    median: s[Math.floor(s.length / 2)] as number,
    min: s[0] as number,
    max: s[s.length - 1] as number,
  };
}

export const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
export const fmt = (f: Figure) => `${ms(f.median)} ms (${ms(f.min)}-${ms(f.max)})`;
const kilo = (n: number) => `${(n / 1000).toFixed(1)}k`;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export function timeProcess(cmd: string, args: readonly string[]): number {
  return runProcess(cmd, args).wall;
}

/**
 * From /proc/self/stat, for this process's waited-for children and theirs (`unshare`'s
 * iptables-restore included): CPU time, user + system in ms (cutime + cstime, in clock ticks of
 * 10 ms), and minor page faults (cminflt: each first touch of a page).
 */
function childrenStat(): { cpu: number; faults: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { cpu: (Number(f[13]) + Number(f[14])) * 10, faults: Number(f[8]) };
}

/** Wall and CPU time, and minor page faults, of one whole process. */
function runProcess(
  cmd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { wall: number; cpu: number; faults: number } {
  const s0 = childrenStat();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300000, env });
  const wall = performance.now() - t0;
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr).trim()}`);
  const s1 = childrenStat();
  return { wall, cpu: s1.cpu - s0.cpu, faults: s1.faults - s0.faults };
}

/**
 * What first touching memory costs on this machine, in ms per MB: a fresh 64 MB buffer filled,
 * beside filling it again. Whole-process figures that read a big file pay it per MB they touch,
 * and machines differ tenfold (a virtual machine whose page faults trap to its host pays most).
 */
function freshMemoryCost(): { fresh: number; warm: number } {
  const MB = 64;
  const bytes = new Uint8Array(MB * 1048576);
  let t0 = performance.now();
  bytes.fill(1);
  const fresh = (performance.now() - t0) / MB;
  t0 = performance.now();
  bytes.fill(2);
  return { fresh, warm: (performance.now() - t0) / MB };
}

/** Whether `iptables-restore --test` runs here (needs root for a private network namespace). */
function referenceAvailable(file: string): string | null {
  try {
    timeProcess('unshare', ['-n', 'iptables-restore', '--test', file]);
    return null;
  } catch (e) {
    return (e as Error).message.split('\n')[0] ?? 'unknown error';
  }
}

function ruleFile(dir: string, services: number): { file: string; shaped: ShapedRuleset } {
  const shaped = kubeShapedRuleset(services, ENDPOINTS);
  const file = join(dir, `rules-${services}`);
  writeFileSync(file, shaped.text);
  return { file, shaped };
}

/**
 * Whole processes, alternating: `node parse-file.js FILE` and `unshare -n iptables-restore
 * --test FILE`. The reference pays for `unshare` (measured alone and printed). The parse entry
 * runs in the environment the installed `hookpath` gives node (hookpath.sh: glibc's huge pages).
 */
function wholeProcess(
  parseEntry: string,
  file: string,
  runs: number,
  refOk: boolean,
  alsoPlain = false,
) {
  const ours: ReturnType<typeof runProcess>[] = [];
  const ref: ReturnType<typeof runProcess>[] = [];
  const plain: ReturnType<typeof runProcess>[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push(runProcess(process.execPath, [parseEntry, file], CLI_ENV));
    if (alsoPlain) plain.push(runProcess(process.execPath, [parseEntry, file]));
    if (refOk) ref.push(runProcess('unshare', ['-n', 'iptables-restore', '--test', file]));
  }
  const wall = (xs: typeof ours) => figure(xs.map((x) => x.wall));
  const cpu = (xs: typeof ours) => figure(xs.map((x) => x.cpu)).median;
  const faults = (xs: typeof ours) => figure(xs.map((x) => x.faults)).median;
  return {
    ours: wall(ours),
    oursCpu: cpu(ours),
    oursFaults: faults(ours),
    ref: refOk ? wall(ref) : null,
    refCpu: refOk ? cpu(ref) : 0,
    refFaults: refOk ? faults(ref) : 0,
    plain: alsoPlain ? { wall: wall(plain), faults: faults(plain) } : null,
  };
}

/** Peak resident memory (MB) of the parse entry's whole process on `file`, as it reports it. */
function peakRss(parseEntry: string, file: string): number {
  const r = spawnSync(process.execPath, [parseEntry, '--rss', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 300000,
    env: CLI_ENV,
  });
  const m = /maxrss (\d+)/.exec(String(r.stderr));
  if (r.status !== 0 || !m) throw new Error(`parse entry --rss: ${String(r.stderr).trim()}`);
  return Number(m[1]) / 1024;
}

/**
 * What of a whole-process figure is start-up: the parse entry on a ruleset of three lines (node,
 * loading and evaluating the bundle, reading a file), beside a bare `node -e 0`.
 */
function startUp(parseEntry: string, dir: string) {
  const tiny = join(dir, 'rules-empty');
  writeFileSync(tiny, '*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n');
  const entry: { wall: number; cpu: number }[] = [];
  const bare: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < 7; i++) {
    bare.push(runProcess(process.execPath, ['-e', '0']));
    entry.push(runProcess(process.execPath, [parseEntry, tiny], CLI_ENV));
  }
  const line = (xs: typeof bare) =>
    `${fmt(figure(xs.map((x) => x.wall)))}, CPU ${ms(figure(xs.map((x) => x.cpu)).median)} ms`;
  console.log(
    `start-up, 7 alternating runs: parse entry on an empty ruleset ${line(entry)}; bare node ${line(bare)} (both are part of every whole-process figure)`,
  );
}

/** Wall times, and the median CPU time (this process's threads: the collector's included). */
function inProcessParse(text: string, runs: number): Figure & { cpu: number } {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    gc();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = parseRuleset(text);
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    if (!r.ok) throw new Error(`bench ruleset does not parse: ${r.diagnostics[0]?.message}`);
  }
  return { ...figure(times), cpu: figure(cpu).median };
}

const SYN_TO = (shaped: ShapedRuleset, i: number): Packet => ({
  proto: 'tcp',
  src: '192.168.1.20',
  dst: shaped.lastServiceIP,
  sport: 40000 + i,
  dport: shaped.lastServicePort,
  mark: 0,
  ttl: 64,
  flags: { syn: true, ack: false, rst: false, fin: false, psh: false, urg: false },
});

function nodeNetwork(rules: string) {
  const { network } = buildNetwork({
    hosts: [
      {
        name: 'node',
        interfaces: [{ name: 'eth0', addresses: ['192.168.1.10/24'] }],
        routes: [{ to: 'default', via: '192.168.1.1' }],
        sysctls: { ipForward: true },
        rules,
      },
    ],
  });
  if (!network) throw new Error('bench network invalid');
  return network;
}

function trace(network: ReturnType<typeof nodeNetwork>, shaped: ShapedRuleset, i: number) {
  const t0 = performance.now();
  const sim = simulate(
    network,
    { kind: 'inject', host: 'node', iface: 'eth0', packet: SYN_TO(shaped, i) },
    { seed: i },
  );
  const t = performance.now() - t0;
  if (sim.outcome.kind !== 'forwarded') throw new Error(`unexpected outcome ${sim.outcome.kind}`);
  return { t, events: sim.events.length };
}

/** First trace after loading (the load itself not counted), and warm traces. */
function traces(shaped: ShapedRuleset) {
  const first: number[] = [];
  const load: number[] = [];
  for (let k = 0; k < 3; k++) {
    // A text the parse cache has not seen: a different trailing comment each time.
    const text = `${shaped.text}# load ${k} ${Date.now()}\n`;
    gc();
    let t0 = performance.now();
    const network = nodeNetwork(text);
    load.push(performance.now() - t0);
    t0 = performance.now();
    first.push(trace(network, shaped, 0).t);
  }
  const network = nodeNetwork(shaped.text);
  trace(network, shaped, 0);
  const warm: number[] = [];
  let events = 0;
  for (let i = 1; i <= 25; i++) {
    const r = trace(network, shaped, i);
    warm.push(r.t);
    events = r.events;
  }
  return { load: figure(load), first: figure(first), warm: figure(warm), events };
}

export function benchEngine(parseEntry: string): void {
  const [l1, l5, l15] = loadavg().map((x) => x.toFixed(2));
  console.log(`engine figures (load average ${l1} ${l5} ${l15} at start)`);
  const dir = mkdtempSync(join(tmpdir(), 'hookpath-bench-'));
  const sizes = [1000, 10000, 30000];
  const files = new Map(sizes.map((s) => [s, ruleFile(dir, s)]));
  const first = files.get(1000) as { file: string };
  const refProblem = referenceAvailable(first.file);
  if (refProblem) console.log(`reference iptables-restore --test not available: ${refProblem}`);
  else {
    const u = figure(Array.from({ length: 5 }, () => timeProcess('unshare', ['-n', 'true'])));
    console.log(
      `reference runs as 'unshare -n iptables-restore --test FILE' (unshare alone ${fmt(u)})`,
    );
  }
  startUp(parseEntry, dir);
  const ref1k: Figure[] = [];
  for (const services of sizes) {
    const { file, shaped } = files.get(services) as { file: string; shaped: ShapedRuleset };
    const runs = services >= 30000 ? 3 : services >= 10000 ? 5 : 9;
    const w = wholeProcess(parseEntry, file, runs, refProblem === null, services === 10000);
    if (services === 1000 && w.ref) ref1k.push(w.ref);
    // Issue 13's whole-process goal is set at 10k and 30k Services; at 1k node's own start-up
    // (~120 ms) is most of the reference's run, so the 1k goal is the in-process line below.
    const goal = services >= 10000 ? 'goal <= 0.5x' : 'no goal (see the in-process line)';
    const ratio = w.ref
      ? `   ratio ${(w.ours.median / w.ref.median).toFixed(2)}x (CPU ${(w.oursCpu / w.refCpu).toFixed(2)}x)   ${goal}`
      : '';
    const faults = `; page faults (first touches of a 4 kB page): ${w.ref ? `hookpath ${kilo(w.oursFaults)}, iptables-restore ${kilo(w.refFaults)}` : kilo(w.oursFaults)}`;
    console.log(
      `${services.toLocaleString('en')} Services x ${ENDPOINTS} (${shaped.rules.toLocaleString('en')} rules, ${(shaped.text.length / 1048576).toFixed(1)} MB), whole process, ${runs} alternating runs: hookpath ${fmt(w.ours)} CPU ${ms(w.oursCpu)} ms${w.ref ? `   iptables-restore --test ${fmt(w.ref)} CPU ${ms(w.refCpu)} ms` : ''}${ratio}${faults}`,
    );
    if (w.plain)
      console.log(
        `  the same, node started without hookpath.sh's GLIBC_TUNABLES (no huge pages for malloc): ${fmt(w.plain.wall)}${w.ref ? `, ratio ${(w.plain.wall.median / w.ref.median).toFixed(2)}x` : ''}; page faults ${kilo(w.plain.faults)}`,
      );
  }
  const mem = freshMemoryCost();
  console.log(
    `memory first touched costs ${mem.fresh.toFixed(2)} ms per MB on this machine (touched again ${mem.warm.toFixed(2)}): each whole process above pays it for the pages it faults in`,
  );
  const small = (files.get(1000) as { shaped: ShapedRuleset }).shaped;
  const p1 = inProcessParse(small.text, 15);
  const ref = ref1k[0];
  console.log(
    `1,000 Services, in-process parse + validate: ${fmt(p1)}, CPU ${ms(p1.cpu)} ms${ref ? `   vs reference whole run ${fmt(ref)}   ratio ${(p1.median / ref.median).toFixed(2)}x   goal <= 0.5x` : ''}`,
  );
  const big = (files.get(10000) as { shaped: ShapedRuleset }).shaped;
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const p10 = inProcessParse(big.text, 5);
  const keep = parseRuleset(big.text);
  gc();
  const retained = process.memoryUsage().heapUsed - heapBefore;
  console.log(`10,000 Services, in-process parse + validate: ${fmt(p10)}, CPU ${ms(p10.cpu)} ms`);
  const tr = traces(big);
  console.log(
    `10,000 Services: load (buildNetwork) ${fmt(tr.load)}; first trace after loading ${fmt(tr.first)}   goal <= 20 ms; warm trace ${fmt(tr.warm)} (${tr.events} events)   goal <= 5 ms`,
  );
  const peak = peakRss(parseEntry, (files.get(10000) as { file: string }).file);
  console.log(
    `memory: one parsed 10,000-Service ruleset retains ${(retained / 1048576).toFixed(0)} MB of heap (${keep.ok ? 'ok' : 'errors'}); the whole process that parses it peaks at ${peak.toFixed(0)} MB resident   budget 300 MB (this bench's own process, holding the 1k, 10k and 30k dumps and their results, is at ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB)`,
  );
}
