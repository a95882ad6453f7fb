/**
 * hookpath: the lab's command line, as a function of its arguments and two output streams, so
 * tests run it in-process. Exit codes: 0 done, 1 a probe differs from its expectation, 2 bad
 * input (with a message naming the place, never a stack trace), 70 a bug in hookpath.
 */
import { rulesCommand, runCommand, scenarioTraceCommand } from './scenario-commands.ts';
import { hostTraceCommand } from './trace-command.ts';
import { exerciseCommand } from './exercise-command.ts';
import { matrixCommand } from './matrix-command.ts';
import { LocatedErrors, UsageError } from './host-args.ts';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** stdout is a terminal that takes colour (never in a pipe, never with NO_COLOR). */
  readonly colour?: boolean;
}

export const EXIT = { ok: 0, mismatch: 1, input: 2, bug: 70 } as const;

export const HELP = `hookpath: where does this packet go?

  hookpath run SCENARIO.yaml... [--variant ID] [--mode iptables|nftables|ipvs] [--json]
      run every probe of the scenarios (in every kube-proxy mode they list) and compare with
      their expectations
  hookpath rules SCENARIO.yaml --node NAME [--variant ID] [--mode iptables|nftables|ipvs] [--iptables]
      print the node's rules as kube-proxy writes them: iptables-save (plus the node's own rules)
      in iptables mode, the nft -f text of its kube-proxy table in nftables mode (--iptables: the
      node's own iptables rules instead)
  hookpath trace SCENARIO.yaml --from SENDER --to TARGET [--variant ID] [--mode MODE] [--all] [--json] [--misses] [--explain]
      the hop-by-hop trace; SENDER: client/NAME, pod/NAME, node/NAME; TARGET: vip:22, svc/NAME:PORT,
      lb/NAME:PORT, nodeport/NAME@NODE, localhost-nodeport/NAME@NODE, healthcheck/NAME@NODE, ADDRESS:PORT
  hookpath matrix SCENARIO.yaml [--variant ID] [--mode iptables|nftables|ipvs] [--json] [--lang en|zh]
      every sender (clients, a pod per workload and node, the nodes) against every address the
      Services expose; exit 1 when a cell the scenario states an expectation for differs
  hookpath exercise check EXERCISE.yaml [--manifests ANSWER.yaml] [--lang en|zh] [--json]
      without an answer: the start must fail a goal and every reference answer meet all (exit 0);
      with one: exit 0 when every goal holds, else 1 with each failing goal and why; bad input 2
  hookpath trace --rules FILE (--local ADDRS | --host FILE) PACKET [options]
      one host, from its iptables-save; options below

Host
  --rules FILE          iptables-save output of the host (- for stdin)
  --rules6 FILE         ip6tables-save output (the rules IPv6 packets meet)
  --local ADDRS         addresses on eth0, comma separated (192.168.50.38/24,192.168.50.100/32)
  --iface NAME=ADDRS    another interface (repeatable), e.g. kube-ipvs0=10.96.0.1/32
  --route ROUTE         a route (repeatable): "default via 192.168.50.1", "10.244.1.0/24 via 192.168.50.39"
  --listen LISTENER     a listening socket (repeatable): "sshd tcp 0.0.0.0:22 SSH-2.0-OpenSSH_10.3"
  --ipset SET           ipset contents (repeatable): "NAME TYPE entry;entry"
  --forward             net.ipv4.ip_forward=1
  --route-localnet      net.ipv4.conf.all.route_localnet=1
  --host FILE           the whole host as YAML/JSON (interfaces, routes, sysctls, listeners, ipsets)

Packet
  --packet "tcp 192.168.50.10:40000 > 192.168.50.100:22"   (IPv6: "tcp [fd00::10]:40000 > [fd00::1]:22")
  --proto P --src A --sport N --dst B --dport N   (instead of --packet)
  --in IFACE            interface the packet arrives on (default eth0)
  --local-out           the packet is sent by a process on this host (OUTPUT path)

Output
  --all                 follow every random branch (statistic, ECMP) and print each outcome's probability
  --seed N              decide random branches with this seed (a whole number; default 1)
  --misses              also list the rules that did not match
  --explain             add a plain-language explanation under each step
  --json                machine-readable output

Exit codes: 0 done, 1 a probe differs from its expectation (run, matrix), 2 bad input (the message says
where), 70 a bug in hookpath, 141 the reader of the output went away (| head).
`;

/** parseArgs reports unknown options and missing values as TypeErrors with ERR_PARSE_ARGS_* codes. */
function isArgsError(e: unknown): e is TypeError {
  return e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS');
}

function command(cmd: string | undefined, rest: string[], io: CliIo): number {
  switch (cmd) {
    case 'trace':
      return rest[0] && !rest[0].startsWith('-')
        ? scenarioTraceCommand(rest, io)
        : hostTraceCommand(rest, io);
    case 'run':
      return runCommand(rest, io);
    case 'rules':
      return rulesCommand(rest, io);
    case 'matrix':
      return matrixCommand(rest, io);
    case 'exercise':
      return exerciseCommand(rest, { write: io.out }, { write: io.err });
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(HELP);
      return EXIT.ok;
    default:
      io.err(
        `hookpath: unknown command '${cmd}'; the commands are run, rules, trace, matrix, exercise, help\n`,
      );
      return EXIT.input;
  }
}

/** The message and exit code for anything a command threw. */
export function reportError(e: unknown, io: CliIo): number {
  if (e instanceof UsageError) {
    io.err(e instanceof LocatedErrors ? `${e.message}\n` : `hookpath: ${e.message}\n`);
    return EXIT.input;
  }
  if (isArgsError(e)) {
    io.err(`hookpath: ${e.message.replace(/\n/g, '\n  ')}\n  (hookpath help lists every option)\n`);
    return EXIT.input;
  }
  // Anything else is a bug: one line and how to report it; the stack only on request.
  const err = e instanceof Error ? e : new Error(String(e));
  io.err(
    `hookpath: internal error: ${err.message}\n  This is a bug in hookpath, not in your input; please report it with the command line.${process.env.HOOKPATH_DEBUG ? `\n${err.stack ?? ''}` : ' (HOOKPATH_DEBUG=1 shows where it happened.)'}\n`,
  );
  return EXIT.bug;
}

export function runCli(argv: readonly string[], io: CliIo): number {
  const [cmd, ...rest] = argv;
  try {
    return command(cmd, rest, io);
  } catch (e) {
    return reportError(e, io);
  }
}
