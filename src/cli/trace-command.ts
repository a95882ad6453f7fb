/** `hookpath trace --rules FILE ...`: one host from its iptables-save, one packet. */
import { parseArgs } from 'node:util';
import {
  buildNetwork,
  enumerateOutcomes,
  hostProblemText,
  ipFamily,
  outcomeKey,
  parseRuleset,
  simulate,
  type HostSpec,
  type ParseResult,
  type ProbeSpec,
  type Simulation,
} from '../engine/index.ts';
import type { CliIo } from './cli.ts';
import { FILE_LIMITS, readInput } from './files.ts';
import { placedIn } from './diagnostics.ts';
import { choicesText, enumerationLines, outcomeText, traceLines } from './format.ts';
import { hostFromArgs, parseSeed, probeFromArgs } from './host-args.ts';
import { UsageError, commandLineDiagnostic, diagnosticText, fileProblems } from './input-error.ts';
import { loadHostFile, type LoadedHost } from './host-file.ts';

/**
 * Reads and checks a rules file; its warnings are printed, its errors end the command. The parse
 * is kept in `parsed` for buildNetwork, which then does not read the file a second time.
 */
function readRules(
  path: string,
  family: 4 | 6,
  io: CliIo,
  parsed: Map<string, ParseResult>,
): string {
  const text = readInput(
    path,
    family === 4 ? 'the rules file' : 'the IPv6 rules file',
    FILE_LIMITS.rules,
  );
  const label = path === '-' ? 'stdin' : path;
  const result = parseRuleset(text, { family });
  const placed = placedIn(label, result.diagnostics);
  if (result.diagnostics.some((d) => d.severity === 'error')) throw fileProblems(label, placed);
  for (const d of placed) io.err(`${diagnosticText(d)}\n`);
  parsed.set(text, result);
  return text;
}

function interfacesOf(spec: HostSpec): string[] {
  return ['lo', ...spec.interfaces.map((i) => i.name)];
}

/** `hookpath trace`'s options when it traces one host (no scenario file). */
const HOST_TRACE_OPTIONS = {
  rules: { type: 'string' },
  rules6: { type: 'string' },
  host: { type: 'string' },
  local: { type: 'string' },
  iface: { type: 'string', multiple: true },
  route: { type: 'string', multiple: true },
  listen: { type: 'string', multiple: true },
  ipset: { type: 'string', multiple: true },
  forward: { type: 'boolean' },
  'route-localnet': { type: 'boolean' },
  packet: { type: 'string' },
  proto: { type: 'string' },
  src: { type: 'string' },
  sport: { type: 'string' },
  dst: { type: 'string' },
  dport: { type: 'string' },
  in: { type: 'string' },
  'local-out': { type: 'boolean' },
  all: { type: 'boolean' },
  seed: { type: 'string' },
  misses: { type: 'boolean' },
  explain: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

type HostTraceValues = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof HOST_TRACE_OPTIONS }>
>['values'];

export function hostTraceCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: HOST_TRACE_OPTIONS,
  });
  if (positionals.length)
    throw new UsageError(
      `unexpected '${positionals[0]}': hookpath trace takes a scenario file first, or only options (--rules FILE ...)`,
    );
  const seed = parseSeed(values.seed);
  const parsed = new Map<string, ParseResult>();
  const { spec, host } = hostSpecOf(values, io, parsed);
  const { network, problems } = buildNetwork({ hosts: [spec] }, { parsed });
  if (!network) {
    const place = host?.place;
    throw new UsageError({
      diagnostics: problems.map((p) =>
        place
          ? place(p)
          : commandLineDiagnostic(
              `host ${p.source ?? ''}: ${p.field ?? ''}: ${hostProblemText(p)}`,
            ),
      ),
    });
  }
  const probe = probeFromArgs(spec.name, {
    packet: values.packet,
    proto: values.proto,
    src: values.src,
    sport: values.sport,
    dst: values.dst,
    dport: values.dport,
    in: values.in,
    localOut: values['local-out'],
  });
  checkProbe(probe, spec);
  if (values.all) return printAll(enumerateOutcomes(network, probe), values.json === true, io);
  const sim = simulate(network, probe, { seed });
  if (values.json) {
    io.out(`${JSON.stringify(sim, null, 2)}\n`);
    return 0;
  }
  const fmt = { misses: values.misses ?? false, explain: values.explain ?? false };
  io.out(`${outcomeText(sim.outcome)}\n\n`);
  for (const l of traceLines(sim.events, fmt)) io.out(`${l}\n`);
  if (sim.choices.length) io.out(`\n${choicesText(sim.choices, seed)}\n`);
  return 0;
}

/** The host to trace: a --host file (with --rules/--rules6 in place of its own), or the options. */
function hostSpecOf(
  values: HostTraceValues,
  io: CliIo,
  parsed: Map<string, ParseResult>,
): { spec: HostSpec; host: LoadedHost | null } {
  if ([values.rules, values.rules6, values.host].filter((f) => f === '-').length > 1)
    throw new UsageError('only one of --rules, --rules6 and --host can be read from stdin (-)');
  const rules = values.rules !== undefined ? readRules(values.rules, 4, io, parsed) : undefined;
  const rules6 = values.rules6 !== undefined ? readRules(values.rules6, 6, io, parsed) : undefined;
  if (values.host === undefined)
    return {
      spec: {
        ...hostFromArgs('host', rules ?? '', {
          local: values.local,
          iface: values.iface,
          route: values.route,
          listen: values.listen,
          ipset: values.ipset,
          forward: values.forward,
          routeLocalnet: values['route-localnet'],
        }),
        ...(rules6 !== undefined ? { rules6 } : {}),
      },
      host: null,
    };
  if (values.local !== undefined || values.iface?.length)
    throw new UsageError('--host FILE describes the whole host: drop --local and --iface');
  const host = loadHostFile(
    values.host === '-' ? 'stdin' : values.host,
    readInput(values.host, 'the host file', FILE_LIMITS.yaml),
  );
  const spec = {
    ...host.spec,
    ...(rules !== undefined ? { rules } : {}),
    ...(rules6 !== undefined ? { rules6 } : {}),
  };
  return { spec, host };
}

/** `--all`: every outcome with its probability (or the runs as JSON). */
function printAll(en: ReturnType<typeof enumerateOutcomes>, json: boolean, io: CliIo): number {
  if (json) {
    io.out(
      `${JSON.stringify({ runs: en.runs, truncated: en.truncated, covered: en.covered, notComputed: en.notComputed, stoppedBy: en.stoppedBy }, null, 2)}\n`,
    );
    return 0;
  }
  const grouped = new Map<string, { p: number; run: Simulation }>();
  for (const run of en.runs) {
    const k = outcomeKey(run.outcome);
    const g = grouped.get(k);
    grouped.set(k, { p: (g?.p ?? 0) + run.probability, run: g?.run ?? run });
  }
  const groups = [...grouped.values()].map((g) => ({
    label: outcomeText(g.run.outcome),
    p: g.p,
  }));
  for (const l of enumerationLines(en, groups)) io.out(`${l}\n`);
  return 0;
}

/** What the packet options cannot check alone: the interface exists, the right ruleset is given. */
function checkProbe(probe: ProbeSpec, spec: HostSpec): void {
  if (probe.kind === 'inject' && !interfacesOf(spec).includes(probe.iface))
    throw new UsageError(
      `--in ${probe.iface}: the host has no interface ${probe.iface} (it has ${interfacesOf(spec).join(', ')})`,
    );
  const dst = probe.kind === 'inject' ? probe.packet.dst : probe.dst;
  if (ipFamily(dst) === 6 && spec.rules && !spec.rules6)
    throw new UsageError(
      `${dst} is an IPv6 address: the kernel filters IPv6 packets with the ip6tables ruleset, which --rules (iptables) is not; give ip6tables-save output with --rules6 FILE`,
    );
}
