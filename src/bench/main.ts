/**
 * `npm run bench`: the engine's speed figures on a kube-proxy-shaped ruleset of 10,000 Services x 3
 * endpoints (issue #2), plus `iptables-restore --test` on the same file as the kernel's reference.
 * The script is bundled like the site (vite SSR build), so the figures are those of shipped code.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildNetwork, parseRuleset, simulate } from '../engine/index.ts';
import { kubeShapedRuleset } from './kube-shaped.ts';
import { benchExtras } from './extras.ts';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 10000);
const ENDPOINTS = 3;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function mb(n: number): string {
  return `${(n / 1024 / 1024).toFixed(0)} MB`;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const shaped = kubeShapedRuleset(SERVICES, ENDPOINTS);
console.log(
  `ruleset: ${SERVICES} Services x ${ENDPOINTS} endpoints, ${shaped.rules} rules, ${(shaped.text.length / 1024 / 1024).toFixed(1)} MB of iptables-save text`,
);

gc();
const heapBefore = process.memoryUsage().heapUsed;
const parseTimes: number[] = [];
let parsed = parseRuleset(shaped.text);
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  parsed = parseRuleset(shaped.text);
  parseTimes.push(performance.now() - t0);
}
if (!parsed.ok) throw new Error(`bench ruleset does not parse: ${parsed.diagnostics[0]?.message}`);
gc();
const heapAfter = process.memoryUsage().heapUsed;
console.log(
  `parse + validate: median ${median(parseTimes).toFixed(0)} ms (runs: ${parseTimes.map((t) => t.toFixed(0)).join(', ')})   budget 1000 ms`,
);

const { network } = buildNetwork({
  hosts: [
    {
      name: 'node',
      interfaces: [{ name: 'eth0', addresses: ['192.168.1.10/24'] }],
      routes: [{ to: 'default', via: '192.168.1.1' }],
      sysctls: { ipForward: true },
      rules: shaped.text,
    },
  ],
});
if (!network) throw new Error('bench network invalid');
const traceTimes: number[] = [];
let events = 0;
for (let i = 0; i < 25; i++) {
  const t0 = performance.now();
  const sim = simulate(
    network,
    {
      kind: 'inject',
      host: 'node',
      iface: 'eth0',
      packet: {
        proto: 'tcp',
        src: '192.168.1.20',
        dst: shaped.lastServiceIP,
        sport: 40000 + i,
        dport: shaped.lastServicePort,
        mark: 0,
        ttl: 64,
        flags: { syn: true, ack: false, rst: false, fin: false, psh: false, urg: false },
      },
    },
    { seed: i },
  );
  traceTimes.push(performance.now() - t0);
  events = sim.events.length;
  if (sim.outcome.kind !== 'forwarded') throw new Error(`unexpected outcome ${sim.outcome.kind}`);
}
console.log(
  `first-packet trace to the last Service: median ${median(traceTimes).toFixed(2)} ms over 25 runs (${events} events)   budget 20 ms`,
);
gc();
const rss = process.memoryUsage().rss;
console.log(
  `memory: ruleset retained ${mb(heapAfter - heapBefore)} of heap, process RSS ${mb(rss)}   budget 300 MB`,
);

// The kernel's own reference: iptables-restore --test in a throwaway network namespace.
try {
  const dir = mkdtempSync(join(tmpdir(), 'hookpath-bench-'));
  const file = join(dir, 'rules');
  writeFileSync(file, shaped.text);
  const t0 = performance.now();
  execFileSync('unshare', ['-n', 'sh', '-c', `iptables-restore --test < ${file}`], {
    stdio: 'pipe',
    timeout: 120000,
  });
  console.log(
    `reference: iptables-restore --test on the same file: ${(performance.now() - t0).toFixed(0)} ms`,
  );
} catch (e) {
  console.log(
    `reference: iptables-restore --test not available here (${(e as Error).message.split('\n')[0]})`,
  );
}

await benchExtras();
