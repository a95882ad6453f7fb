/**
 * hookpath: the lab's command line.
 *   hookpath trace --rules FILE --local ADDRS [host options] --packet "tcp SRC:PORT > DST:PORT" [--json] [--all]
 * Run `hookpath help` for every option.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import {
  buildNetwork,
  enumerateOutcomes,
  parseRuleset,
  simulate,
  outcomeKey,
  type HostSpec,
  type Simulation,
} from '../engine/index.ts';
import { outcomeText, traceLines } from './format.ts';
import { hostFromArgs, probeFromArgs, UsageError } from './host-args.ts';
import { rulesCommand, runCommand, scenarioTraceCommand } from './scenario-commands.ts';
import { exerciseCommand } from './exercise-command.ts';

const HELP = `hookpath: where does this packet go?

  hookpath run SCENARIO.yaml... [--variant ID] [--json]
      run every probe of the scenarios and compare with their expectations (exit 1 on a mismatch)
  hookpath rules SCENARIO.yaml --node NAME [--variant ID]
      print the node's iptables-save as kube-proxy (plus the node's own rules) writes it
  hookpath trace SCENARIO.yaml --from SENDER --to TARGET [--variant ID] [--all] [--json] [--misses] [--explain]
      the hop-by-hop trace; SENDER: client/NAME, pod/NAME, node/NAME; TARGET: vip:22, svc/NAME:PORT,
      lb/NAME:PORT, nodeport/NAME@NODE, localhost-nodeport/NAME@NODE, healthcheck/NAME@NODE, ADDRESS:PORT
  hookpath exercise check EXERCISE.yaml [--manifests ANSWER.yaml] [--lang en|zh] [--json]
      without an answer: the start must fail a goal and every reference answer meet all (exit 0);
      with one: exit 0 when every goal holds, else 1 with each failing goal and why; bad input 2
  hookpath trace --rules FILE (--local ADDRS | --host FILE) PACKET [options]
      one host, from its iptables-save; options below

Host
  --rules FILE          iptables-save output of the host (- for stdin)
  --local ADDRS         addresses on eth0, comma separated (192.168.50.38/24,192.168.50.100/32)
  --iface NAME=ADDRS    another interface (repeatable), e.g. kube-ipvs0=10.96.0.1/32
  --route ROUTE         a route (repeatable): "default via 192.168.50.1", "10.244.1.0/24 via 192.168.50.39"
  --listen LISTENER     a listening socket (repeatable): "sshd tcp 0.0.0.0:22 SSH-2.0-OpenSSH_10.3"
  --ipset SET           ipset contents (repeatable): "NAME TYPE entry;entry"
  --forward             net.ipv4.ip_forward=1
  --route-localnet      net.ipv4.conf.all.route_localnet=1
  --host FILE           the whole host as YAML/JSON (interfaces, routes, sysctls, listeners, ipsets)

Packet
  --packet "tcp 192.168.50.10:40000 > 192.168.50.100:22"
  --proto P --src A --sport N --dst B --dport N   (instead of --packet)
  --in IFACE            interface the packet arrives on (default eth0)
  --local-out           the packet is sent by a process on this host (OUTPUT path)

Output
  --all                 follow every random branch (statistic, ECMP) and print each outcome's probability
  --seed N              decide random branches with this seed (default 1)
  --misses              also list the rules that did not match
  --explain             add a plain-language explanation under each step
  --json                machine-readable output
`;

function readText(path: string): string {
  return readFileSync(path === '-' ? 0 : path, 'utf8');
}

function traceCommand(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      rules: { type: 'string' },
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
    },
  });
  const rulesPath = values.rules;
  const rules = rulesPath ? readText(rulesPath) : '';
  if (rulesPath) {
    const parsed = parseRuleset(rules);
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
    for (const d of parsed.diagnostics) {
      process.stderr.write(
        `${rulesPath}:${d.line}:${d.column}: ${d.severity}: ${d.message}${d.hint ? `\n  hint: ${d.hint}` : ''}\n`,
      );
    }
    if (errors.length) return 2;
  }
  let spec: HostSpec;
  if (values.host) {
    const loaded = parseYaml(readText(values.host)) as HostSpec;
    spec = { ...loaded, name: loaded.name ?? 'host', rules: rules || loaded.rules || '' };
  } else {
    spec = hostFromArgs('host', rules, {
      local: values.local,
      iface: values.iface,
      route: values.route,
      listen: values.listen,
      ipset: values.ipset,
      forward: values.forward,
      routeLocalnet: values['route-localnet'],
    });
  }
  const { network, problems } = buildNetwork({ hosts: [spec] });
  if (!network) {
    for (const p of problems) process.stderr.write(`host ${p.host}: ${p.field}: ${p.message}\n`);
    return 2;
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
  const fmt = { misses: values.misses ?? false, explain: values.explain ?? false };
  if (values.all) {
    const en = enumerateOutcomes(network, probe);
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ runs: en.runs, truncated: en.truncated }, null, 2)}\n`,
      );
      return 0;
    }
    const grouped = new Map<string, { p: number; run: Simulation }>();
    for (const run of en.runs) {
      const k = outcomeKey(run.outcome);
      const g = grouped.get(k);
      grouped.set(k, { p: (g?.p ?? 0) + run.probability, run: g?.run ?? run });
    }
    for (const { p, run } of grouped.values())
      process.stdout.write(`${(p * 100).toFixed(1).padStart(5)}%  ${outcomeText(run.outcome)}\n`);
    if (en.truncated) process.stdout.write('(stopped after 512 branches)\n');
    return 0;
  }
  const sim = simulate(network, probe, { seed: Number(values.seed ?? 1) });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(sim, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(`${outcomeText(sim.outcome)}\n\n`);
  for (const l of traceLines(sim.events, fmt)) process.stdout.write(`${l}\n`);
  if (sim.choices.length) {
    process.stdout.write(
      `\nrandom branches taken (seed ${values.seed ?? 1}): ${sim.choices.map((c) => `${c.label} -> option ${c.index + 1} (p=${c.probability.toFixed(4)})`).join(', ')}\n`,
    );
  }
  return 0;
}

function main(argv: string[]): number {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'trace':
        return rest[0] && !rest[0].startsWith('-')
          ? scenarioTraceCommand(rest)
          : traceCommand(rest);
      case 'run':
        return runCommand(rest);
      case 'rules':
        return rulesCommand(rest);
      case 'exercise':
        return exerciseCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        return 0;
      default:
        process.stderr.write(`unknown command '${cmd}'\n\n${HELP}`);
        return 2;
    }
  } catch (e) {
    if (
      e instanceof UsageError ||
      (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      process.stderr.write(`hookpath: ${e.message}\n`);
      return 2;
    }
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') {
      process.stderr.write(`hookpath: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

process.exitCode = main(process.argv.slice(2));
