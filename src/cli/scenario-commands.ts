/** `hookpath run`, `hookpath rules`, and `hookpath trace <scenario>`: scenarios from the command line. */
import { parseArgs } from 'node:util';
import { checkProbe, describeOutcome } from '../cluster/expect.ts';
import { clusterOf, probeFor, networkOf } from '../cluster/lab.ts';
import {
  loadScenario,
  scenarioModes,
  type KubeProxyMode,
  type LoadedScenario,
} from '../cluster/scenario.ts';
import type { BuiltCluster } from '../cluster/topology.ts';
import { IPVS_DEPRECATION, IPVS_MODELLED } from '../kube/ipvs/index.ts';
import {
  enumerateOutcomes,
  ipvsadmSave,
  simulate,
  type Diagnostic,
  valueOf,
} from '../engine/index.ts';
import type { CliIo } from './cli.ts';
import { FILE_LIMITS, readInput } from './files.ts';
import { placedIn } from './diagnostics.ts';
import { choicesText, enumerationLines, outcomeText, traceLines } from './format.ts';
import { parseSeed } from './host-args.ts';
import { UsageError, diagnosticText, fileProblems, usageText } from './input-error.ts';

/** A scenario's problems in its file: manifest positions mapped to where the block is written. */
function scenarioDiagnostics(
  file: string,
  diags: readonly Diagnostic[],
  s: LoadedScenario | null,
  variant: string | undefined,
): Diagnostic[] {
  // The block is looked up only for a manifests position (it composes the file with `yaml`).
  const placed = diags.some((d) => d.source === 'manifests' && d.line > 0);
  return placedIn(file, diags, s && placed ? s.manifestsBlock(variant) : null);
}

/** `file:line:column: severity: field: message`, manifest positions mapped into the scenario file. */
function scenarioLines(
  file: string,
  diags: readonly Diagnostic[],
  s: LoadedScenario | null,
  variant: string | undefined,
): string[] {
  return scenarioDiagnostics(file, diags, s, variant).map(diagnosticText);
}

/** Reads and checks a scenario; its errors end the command (exit 2), its warnings are printed. */
export function load(file: string | undefined, io: CliIo): LoadedScenario {
  if (file === undefined)
    throw new UsageError('give a scenario file, e.g. scenarios/vip22-sshd-or-service.yaml');
  const text = readInput(file, 'the scenario file', FILE_LIMITS.yaml);
  const scenarioRead = loadScenario(text);
  const scenario = valueOf(scenarioRead);
  const { diagnostics } = scenarioRead;
  const placed = scenarioDiagnostics(file, diagnostics, scenario, undefined);
  if (!scenario) throw fileProblems(file, placed, `${file}: not a valid scenario (see above)`);
  for (const d of placed) io.err(`${diagnosticText(d)}\n`);
  return scenario;
}

export function variantsOf(s: LoadedScenario, only: string | undefined): (string | undefined)[] {
  const all = s.def.variants?.map((v) => v.id) ?? [];
  if (only !== undefined) {
    if (!all.includes(only))
      throw new UsageError(`no variant '${only}'; variants are ${all.join(', ') || 'none'}`);
    return [only];
  }
  return all.length ? all : [undefined];
}

/** The kube-proxy modes to run: `--mode` (checked against the scenario's), else all of them. */
function modesOf(s: LoadedScenario, only: string | undefined): KubeProxyMode[] {
  const all = scenarioModes(s.def);
  if (only === undefined) return [...all];
  if (!(all as readonly string[]).includes(only))
    throw new UsageError(
      `--mode '${only}': the scenario runs in ${all.join(', ')} (its kubeProxyModes)`,
    );
  return [only as KubeProxyMode];
}

/** `[variant, mode]` in run headers; the mode only for scenarios that run in several. */
function label(loaded: LoadedScenario, v: string | undefined, mode: KubeProxyMode): string {
  const parts = [v, scenarioModes(loaded.def).length > 1 ? `${mode} mode` : undefined].filter(
    (x) => x !== undefined,
  );
  return parts.length ? ` [${parts.join(', ')}]` : '';
}

/** The cluster of a variant; its errors end a single-scenario command (exit 2). */
export function buildOrThrow(
  file: string,
  loaded: LoadedScenario,
  variant: string | undefined,
  io: CliIo,
  mode?: KubeProxyMode,
) {
  const built = clusterOf(loaded, variant, undefined, mode);
  const placed = scenarioDiagnostics(file, built.diagnostics, loaded, variant);
  if (!built.cluster || built.diagnostics.some((d) => d.severity === 'error'))
    throw fileProblems(
      file,
      placed,
      `${file}${variant ? ` [${variant}]` : ''}: the cluster has errors (see above)`,
    );
  for (const d of placed) io.err(`${diagnosticText(d)}\n`);
  return { ...built, cluster: built.cluster };
}

/** The IPVS-mode nodes of a cluster, for the "modelled" mark. */
function ipvsNodes(c: BuiltCluster): string[] {
  return c.spec.nodes.map((n) => n.name).filter((n) => c.ipvsOf(n) !== undefined);
}

/** The mark every IPVS result carries: where it comes from, and that IPVS mode is deprecated. */
function ipvsMark(nodes: readonly string[]): string {
  return `IPVS mode on ${nodes.join(', ')}: results ${IPVS_MODELLED}. ${IPVS_DEPRECATION}.`;
}

/** A probe's result in `run --json`. */
function probeJson(probe: { from: string; to: string }, r: ReturnType<typeof checkProbe>) {
  return {
    from: probe.from,
    to: probe.to,
    address: r.address,
    pass: r.pass,
    expected: r.expected,
    got: r.got,
    diff: r.diff,
    runs: r.runs.map((x) => ({ probability: x.probability, outcome: x.outcome })),
  };
}

export function runCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { variant: { type: 'string' }, mode: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (!positionals.length)
    throw new UsageError('give one or more scenario files, e.g. hookpath run scenarios/*.yaml');
  let failed = 0;
  let total = 0;
  let unrun = 0;
  const report: unknown[] = [];
  for (const file of positionals) {
    let loaded: LoadedScenario;
    try {
      loaded = load(file, io);
    } catch (e) {
      // One bad file does not hide the results of the others; it still makes the exit code 2.
      if (!(e instanceof UsageError)) throw e;
      io.err(usageText(e));
      if (values.json) report.push({ file, pass: false, notRun: true, diagnostics: e.diagnostics });
      unrun++;
      continue;
    }
    const runs = modesOf(loaded, values.mode).flatMap((mode) =>
      variantsOf(loaded, values.variant).map((v) => ({ v, mode })),
    );
    for (const { v, mode } of runs) {
      const built = clusterOf(loaded, v, undefined, mode);
      for (const l of scenarioLines(file, built.diagnostics, loaded, v)) io.err(`${l}\n`);
      if (!built.cluster || built.diagnostics.some((d) => d.severity === 'error')) {
        if (values.json)
          report.push({
            file,
            variant: v ?? null,
            mode,
            pass: false,
            notRun: true,
            diagnostics: scenarioDiagnostics(file, built.diagnostics, loaded, v),
          });
        io.err(
          `${file}${label(loaded, v, mode)}: not run: the cluster has errors (above); its ${built.probes.length} probe${built.probes.length === 1 ? '' : 's'} did not run\n`,
        );
        unrun++;
        continue;
      }
      const ipvs = ipvsNodes(built.cluster);
      if (!values.json) {
        io.out(`\n${file}${label(loaded, v, mode)}\n`);
        if (ipvs.length) io.out(`  (${ipvsMark(ipvs)})\n`);
      }
      for (const probe of built.probes) {
        const r = checkProbe(built.cluster, probe);
        total++;
        if (!r.pass) failed++;
        if (values.json) {
          report.push({
            file,
            variant: v ?? null,
            mode,
            name: probe.name ?? null,
            ...probeJson(probe, r),
            modelled: ipvs.length ? ipvsMark(ipvs) : null,
          });
          continue;
        }
        io.out(
          `  ${r.pass ? 'ok  ' : 'FAIL'} ${probe.name ?? ''}\n       ${probe.from} -> ${probe.to}${r.address ? ` (${r.address})` : ''}\n       expected: ${r.expected}\n       got:      ${r.got}\n`,
        );
        for (const d of r.diff) io.out(`       ! ${d}\n`);
      }
    }
  }
  if (values.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else
    io.out(
      `\n${total - failed} of ${total} probes as expected${failed ? `; ${failed} failed` : ''}${unrun ? `; ${unrun} scenario${unrun === 1 ? '' : 's'} or variant${unrun === 1 ? '' : 's'} not run because of errors (on stderr)` : ''}\n`,
    );
  return unrun ? 2 : failed ? 1 : 0;
}

export function rulesCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      node: { type: 'string' },
      variant: { type: 'string' },
      mode: { type: 'string' },
      iptables: { type: 'boolean' },
    },
  });
  const file = positionals[0];
  const loaded = load(file, io);
  variantsOf(loaded, values.variant);
  const mode = values.mode === undefined ? undefined : modesOf(loaded, values.mode)[0];
  const built = buildOrThrow(file as string, loaded, values.variant, io, mode);
  const nodes = built.cluster.spec.nodes.map((n) => n.name);
  const node = values.node ?? nodes[0];
  const c = built.cluster;
  if (node === undefined || !nodes.includes(node))
    throw new UsageError(`no node '${node ?? ''}'; nodes are ${nodes.join(', ')}`);
  const nft = c.nftablesOf(node);
  // An nftables-mode node: kube-proxy's table for `nft -f`; its own iptables rules on request.
  if (nft !== undefined && !values.iptables) {
    io.out(nft);
    if ((c.rulesOf(node) ?? '').trim())
      io.err(
        `hookpath: ${node} also has iptables rules of its own (a host firewall): add --iptables to print them\n`,
      );
    return 0;
  }
  const text = c.rulesOf(node) ?? '';
  const ipvs = c.ipvsOf(node);
  if (!ipvs) {
    io.out(text);
    return 0;
  }
  // An IPVS-mode node: its iptables-save, then what IPVS mode adds, as comments so that the
  // output still loads with iptables-restore.
  const comment = (title: string, body: string) =>
    `#\n# ${title}\n${body
      .trimEnd()
      .split('\n')
      .map((l) => `#   ${l}`.trimEnd())
      .join('\n')}\n`;
  io.out(`# ${ipvsMark([node])}\n${text}`);
  io.out(
    comment(
      'ip -4 addr show kube-ipvs0 (every ClusterIP, external IP and LoadBalancer IP is a local address)',
      ipvs.dummyAddresses.map((a) => `inet ${a}/32 scope global kube-ipvs0`).join('\n') ||
        '(no address)',
    ),
  );
  io.out(comment('ipset save', ipvs.ipsetSave));
  io.out(comment('ipvsadm -Ln', ipvs.ipvsadm));
  io.out(comment('ipvsadm -S -n', ipvsadmSave(ipvs.ipvs)));
  return 0;
}

export function scenarioTraceCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      proto: { type: 'string' },
      variant: { type: 'string' },
      mode: { type: 'string' },
      all: { type: 'boolean' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      misses: { type: 'boolean' },
      explain: { type: 'boolean' },
    },
  });
  const seed = parseSeed(values.seed);
  const proto = values.proto;
  if (
    proto !== undefined &&
    proto !== 'tcp' &&
    proto !== 'udp' &&
    proto !== 'sctp' &&
    proto !== 'icmp'
  )
    throw new UsageError(`--proto '${proto}': use tcp, udp, sctp or icmp (a ping)`);
  const file = positionals[0];
  if (positionals.length > 1)
    throw new UsageError(`one scenario at a time: unexpected '${positionals[1]}'`);
  const loaded = load(file, io);
  variantsOf(loaded, values.variant);
  const mode = values.mode === undefined ? undefined : modesOf(loaded, values.mode)[0];
  const built = buildOrThrow(file as string, loaded, values.variant, io, mode);
  const first = built.probes[0];
  const from = values.from ?? first?.from;
  const to = values.to ?? first?.to;
  if (!from || !to)
    throw new UsageError('give --from and --to, e.g. --from client/laptop --to vip:22');
  const resolved = probeFor(built.cluster, { from, to, ...(proto ? { proto } : {}) });
  if ('error' in resolved) throw new UsageError(resolved.error);
  const net = networkOf(built.cluster);
  if ('problems' in net) throw new UsageError(net.problems);
  if (values.all) {
    const en = enumerateOutcomes(net, resolved.probe);
    if (values.json) {
      io.out(`${JSON.stringify(en, null, 2)}\n`);
      return 0;
    }
    const grouped = new Map<string, number>();
    for (const r of en.runs) {
      const k = describeOutcome(built.cluster, r.outcome);
      grouped.set(k, (grouped.get(k) ?? 0) + r.probability);
    }
    const groups = [...grouped].map(([label, p]) => ({ label, p }));
    for (const l of enumerationLines(en, groups)) io.out(`${l}\n`);
    return 0;
  }
  const sim = simulate(net, resolved.probe, { seed });
  // The mark when IPVS took part in this run (an IPVS-mode node on the path).
  const onPath = new Set(sim.events.map((e) => e.host));
  const ipvs = ipvsNodes(built.cluster).filter((n) => onPath.has(n));
  if (values.json) {
    io.out(
      `${JSON.stringify({ ...sim, modelled: ipvs.length ? ipvsMark(ipvs) : null }, null, 2)}\n`,
    );
    return 0;
  }
  io.out(
    `${from} -> ${to} (${resolved.to.proto} ${resolved.to.address}:${resolved.to.port})\n${outcomeText(sim.outcome)}\n${ipvs.length ? `(${ipvsMark(ipvs)})\n` : ''}\n`,
  );
  for (const l of traceLines(sim.events, {
    misses: values.misses ?? false,
    explain: values.explain ?? false,
  }))
    io.out(`${l}\n`);
  if (sim.choices.length) io.out(`\n${choicesText(sim.choices, seed)}\n`);
  return 0;
}
