/**
 * nftables-mode figures (issue 10): a kube-proxy-shaped nft ruleset (nft-shaped.ts) read as
 * whole processes, `node parse-file.js --nft FILE` against `unshare -n nft -c -f FILE` on the
 * same file, alternating; CPU time beside wall time for both (children's CPU from
 * /proc/self/stat, as the machine is shared); the in-process parse; and the first trace after
 * loading 10,000 Services (the load itself printed apart).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildNetwork, parseNftRuleset, simulate } from '../engine/index.ts';
import { CLI_ENV, figure, fmt, ms, type Figure } from './engine.ts';
import { nftShapedRuleset, type NftShaped } from './nft-shaped.ts';

const ENDPOINTS = 3;
/** USER_HZ: /proc reports CPU times in ticks of 1/100 s. */
const TICK_MS = 10;

/** CPU time of this process's waited-for children so far (cutime + cstime), ms. */
function childCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * TICK_MS;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** One run of a command: wall and CPU ms, or the reason it failed. */
function run(
  cmd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { wall: number; cpu: number } {
  const c0 = childCpuMs();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 600000, env });
  const wall = performance.now() - t0;
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr).trim()}`);
  return { wall, cpu: childCpuMs() - c0 };
}

function wholeProcess(parseEntry: string, file: string, runs: number, refOk: boolean) {
  const ours: { wall: number; cpu: number }[] = [];
  const ref: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < runs; i++) {
    // As the installed `hookpath` starts node (hookpath.sh).
    ours.push(run(process.execPath, [parseEntry, '--nft', file], CLI_ENV));
    if (refOk) ref.push(run('unshare', ['-n', 'nft', '-c', '-f', file]));
  }
  const f = (xs: typeof ours) => ({
    wall: figure(xs.map((x) => x.wall)),
    cpu: figure(xs.map((x) => x.cpu)),
  });
  return { ours: f(ours), ref: refOk ? f(ref) : null };
}

function inProcess(text: string, runs: number): { wall: Figure; cpu: Figure } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    gc();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = parseNftRuleset(text);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    if (!r.ok) throw new Error(`bench ruleset does not load: ${r.diagnostics[0]?.message}`);
  }
  return { wall: figure(wall), cpu: figure(cpu) };
}

function nodeNetwork(nftables: string) {
  const { network, problems } = buildNetwork({
    hosts: [
      {
        name: 'node',
        interfaces: [{ name: 'eth0', addresses: ['192.168.1.10/24'] }],
        routes: [{ to: 'default', via: '192.168.1.1' }],
        sysctls: { ipForward: true },
        nftables,
      },
    ],
  });
  if (!network) throw new Error(`bench network invalid: ${problems[0]?.message}`);
  return network;
}

function trace(network: ReturnType<typeof nodeNetwork>, shaped: NftShaped, i: number): number {
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
  const t = performance.now() - t0;
  if (sim.outcome.kind !== 'forwarded') throw new Error(`unexpected outcome ${sim.outcome.kind}`);
  return t;
}

const both = (x: { wall: Figure; cpu: Figure }) => `${fmt(x.wall)}, CPU ${fmt(x.cpu)}`;

export function benchNft(parseEntry: string): void {
  const [l1, l5, l15] = loadavg().map((x) => x.toFixed(2));
  console.log(`nftables-mode figures (load average ${l1} ${l5} ${l15} at start)`);
  const dir = mkdtempSync(join(tmpdir(), 'hookpath-bench-nft-'));
  let refOk = true;
  for (const services of [1000, 10000]) {
    const shaped = nftShapedRuleset(services, ENDPOINTS);
    const file = join(dir, `kube-proxy-${services}.nft`);
    writeFileSync(file, shaped.text);
    if (services === 1000) {
      try {
        run('unshare', ['-n', 'nft', '-c', '-f', file]);
      } catch (e) {
        refOk = false;
        console.log(`reference nft -c -f not available: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    const runs = services >= 10000 ? 3 : 5;
    const w = wholeProcess(parseEntry, file, runs, refOk);
    const ratio = w.ref
      ? `   ratio ${(w.ours.wall.median / w.ref.wall.median).toFixed(2)}x wall, ${(w.ours.cpu.median / Math.max(1, w.ref.cpu.median)).toFixed(2)}x CPU   goal <= 0.5x`
      : '';
    console.log(
      `${services.toLocaleString('en')} Services x ${ENDPOINTS} (${shaped.rules.toLocaleString('en')} rules, ${shaped.elements.toLocaleString('en')} map elements, ${(shaped.text.length / 1048576).toFixed(1)} MB), whole process, ${runs} alternating runs: hookpath ${both(w.ours)}${w.ref ? `   nft -c -f ${both(w.ref)}` : ''}${ratio}`,
    );
    if (services !== 10000) continue;
    console.log(`10,000 Services, in-process parse: ${both(inProcess(shaped.text, 3))}`);
    const load: number[] = [];
    const first: number[] = [];
    for (let k = 0; k < 3; k++) {
      gc();
      let t0 = performance.now();
      const network = nodeNetwork(`${shaped.text}# load ${k}\n`);
      load.push(performance.now() - t0);
      t0 = performance.now();
      first.push(trace(network, shaped, k));
    }
    const network = nodeNetwork(shaped.text);
    trace(network, shaped, 0);
    const warm = Array.from({ length: 20 }, (_, i) => trace(network, shaped, i + 1));
    console.log(
      `10,000 Services: load (buildNetwork) ${fmt(figure(load))}; first trace after loading ${fmt(figure(first))}   goal <= 20 ms; warm trace ${ms(figure(warm).median)} ms`,
    );
  }
}
