/** `hookpath run`, `hookpath rules`, and `hookpath trace <scenario>`: scenarios from the command line. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkProbe, describeOutcome } from '../cluster/expect.ts';
import { clusterOf, probeFor, networkOf } from '../cluster/lab.ts';
import { loadScenario, type LoadedScenario } from '../cluster/scenario.ts';
import type { LabDiagnostic } from '../cluster/types.ts';
import { enumerateOutcomes, simulate } from '../engine/index.ts';
import { outcomeText, traceLines } from './format.ts';
import { UsageError } from './host-args.ts';

function load(file: string | undefined): { loaded: LoadedScenario; file: string } {
  if (!file)
    throw new UsageError('give a scenario file, e.g. scenarios/vip22-sshd-or-service.yaml');
  const text = readFileSync(file, 'utf8');
  const { scenario, diagnostics } = loadScenario(text);
  printDiagnostics(file, diagnostics, scenario, undefined);
  if (!scenario) throw new UsageError(`${file} is not a valid scenario (see above)`);
  return { loaded: scenario, file };
}

/** `file:line:column: message`, with manifest positions mapped into the scenario file. */
function printDiagnostics(
  file: string,
  diags: readonly LabDiagnostic[],
  s: LoadedScenario | null,
  variant: string | undefined,
): void {
  for (const d of diags) {
    let line = d.line;
    let col = d.column;
    if (d.source === 'manifests' && s && line > 0) {
      const at = s.manifestsBlock(variant);
      line = at.line + line - 1;
      col = col + at.indent;
    }
    const where = line > 0 ? `${file}:${line}:${col}` : file;
    process.stderr.write(`${where}: ${d.severity}: ${d.path ? `${d.path}: ` : ''}${d.message}\n`);
  }
}

function variantsOf(s: LoadedScenario, only: string | undefined): (string | undefined)[] {
  const all = s.def.variants?.map((v) => v.id) ?? [];
  if (only) {
    if (!all.includes(only))
      throw new UsageError(`no variant '${only}'; variants are ${all.join(', ') || 'none'}`);
    return [only];
  }
  return all.length ? all : [undefined];
}

export function runCommand(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { variant: { type: 'string' }, json: { type: 'boolean' } },
  });
  let failed = 0;
  let total = 0;
  const report: unknown[] = [];
  for (const file of positionals.length ? positionals : [undefined]) {
    const { loaded } = load(file);
    for (const v of variantsOf(loaded, values.variant)) {
      const built = clusterOf(loaded, v, undefined);
      printDiagnostics(file as string, built.diagnostics, loaded, v);
      if (!built.cluster || built.diagnostics.some((d) => d.severity === 'error')) {
        failed++;
        continue;
      }
      if (!values.json) process.stdout.write(`\n${file}${v ? ` [${v}]` : ''}\n`);
      for (const probe of built.probes) {
        const r = checkProbe(built.cluster, probe);
        total++;
        if (!r.pass) failed++;
        if (values.json) {
          report.push({
            file,
            variant: v ?? null,
            name: probe.name ?? null,
            from: probe.from,
            to: probe.to,
            address: r.address,
            pass: r.pass,
            expected: r.expected,
            got: r.got,
            diff: r.diff,
            runs: r.runs.map((x) => ({ probability: x.probability, outcome: x.outcome })),
          });
          continue;
        }
        process.stdout.write(
          `  ${r.pass ? 'ok  ' : 'FAIL'} ${probe.name ?? ''}\n       ${probe.from} -> ${probe.to}${r.address ? ` (${r.address})` : ''}\n       expected: ${r.expected}\n       got:      ${r.got}\n`,
        );
        for (const d of r.diff) process.stdout.write(`       ! ${d}\n`);
      }
    }
  }
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else
    process.stdout.write(
      `\n${total - Math.min(failed, total)} of ${total} probes as expected${failed ? `; ${failed} failed` : ''}\n`,
    );
  return failed ? 1 : 0;
}

export function rulesCommand(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { node: { type: 'string' }, variant: { type: 'string' } },
  });
  const { loaded, file } = load(positionals[0]);
  const built = clusterOf(loaded, values.variant, undefined);
  printDiagnostics(file, built.diagnostics, loaded, values.variant);
  if (!built.cluster) return 2;
  const nodes = built.cluster.spec.nodes.map((n) => n.name);
  const node = values.node ?? nodes[0];
  const text = node ? built.cluster.rulesOf(node) : undefined;
  if (text === undefined)
    throw new UsageError(`no node '${node ?? ''}'; nodes are ${nodes.join(', ')}`);
  process.stdout.write(text);
  return 0;
}

export function scenarioTraceCommand(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      proto: { type: 'string' },
      variant: { type: 'string' },
      all: { type: 'boolean' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      misses: { type: 'boolean' },
      explain: { type: 'boolean' },
    },
  });
  const { loaded, file } = load(positionals[0]);
  const built = clusterOf(loaded, values.variant, undefined);
  printDiagnostics(file, built.diagnostics, loaded, values.variant);
  if (!built.cluster) return 2;
  const first = built.probes[0];
  const from = values.from ?? first?.from;
  const to = values.to ?? first?.to;
  if (!from || !to)
    throw new UsageError('give --from and --to, e.g. --from client/laptop --to vip:22');
  const proto = values.proto as 'tcp' | 'udp' | undefined;
  const resolved = probeFor(built.cluster, { from, to, ...(proto ? { proto } : {}) });
  if ('error' in resolved) throw new UsageError(resolved.error);
  const net = networkOf(built.cluster);
  if ('problems' in net) throw new UsageError(net.problems);
  if (values.all) {
    const en = enumerateOutcomes(net, resolved.probe);
    if (values.json) {
      process.stdout.write(`${JSON.stringify(en, null, 2)}\n`);
      return 0;
    }
    const grouped = new Map<string, number>();
    for (const r of en.runs) {
      const k = describeOutcome(built.cluster, r.outcome);
      grouped.set(k, (grouped.get(k) ?? 0) + r.probability);
    }
    for (const [k, p] of grouped)
      process.stdout.write(`${(p * 100).toFixed(1).padStart(5)}%  ${k}\n`);
    return 0;
  }
  const sim = simulate(net, resolved.probe, { seed: Number(values.seed ?? 1) });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(sim, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(
    `${from} -> ${to} (${resolved.to.proto} ${resolved.to.address}:${resolved.to.port})\n${outcomeText(sim.outcome)}\n\n`,
  );
  for (const l of traceLines(sim.events, {
    misses: values.misses ?? false,
    explain: values.explain ?? false,
  }))
    process.stdout.write(`${l}\n`);
  return 0;
}
