/**
 * Runs kube-proxy's packet-flow test cases through the engine (a real kernel model, not
 * kube-proxy's test tracer) and derives the tracer's `output` and `masq` from our trace:
 * DNAT destinations of every statistic branch, filter verdicts in kube-proxy's filter chains,
 * and whether any branch jumped to KUBE-MARK-MASQ. See the corpus README (conformance/README.md of the shared material).
 */
import {
  buildNetwork,
  enumerateOutcomes,
  type HostSpec,
  type ProbeSpec,
  type RouteSpec,
  type TraceEvent,
} from '../engine/index.ts';

export interface Flow {
  readonly name: string;
  readonly sourceIP: string;
  readonly destIP: string;
  readonly destPort: number;
  readonly protocol?: string;
  readonly output: string;
  readonly masq: boolean;
}

export interface FlowResult {
  readonly flow: Flow;
  readonly output: string;
  readonly masq: boolean;
  readonly pass: boolean;
  readonly note?: string;
}

/** The filter chains kube-proxy's tracer evaluates (it ignores the built-in and forwarding chains). */
const TRACED_FILTER_CHAINS = new Set([
  'KUBE-SERVICES',
  'KUBE-EXTERNAL-SERVICES',
  'KUBE-NODEPORTS',
  'KUBE-PROXY-FIREWALL',
]);

/**
 * A node like kube-proxy's fake: eth0 with every node IP of both families (as the fake's
 * interfaces have), forwarding on, a default gateway per family. The rules go to iptables or
 * ip6tables by `family`, as kube-proxy runs one proxier per family.
 */
export function conformanceHost(
  rules: string,
  localAddresses: readonly string[],
  family: 4 | 6,
): HostSpec {
  const addrs = localAddresses.filter((a) => a !== '127.0.0.1' && a !== '::1');
  const v4 = addrs.filter((a) => !a.includes(':'));
  const v6 = addrs.filter((a) => a.includes(':'));
  const routes: RouteSpec[] = [{ to: 'default', via: gateway4(v4[0] ?? '192.168.0.2') }];
  if (v6[0] !== undefined) routes.push({ to: '::/0', via: gateway6(v6[0]) });
  return {
    name: 'test-node',
    role: 'node',
    interfaces: [
      {
        name: 'eth0',
        addresses: addrs.map((a) => (a.includes(':') ? `${a}/64` : `${a}/24`)),
        segment: 'uplink',
      },
    ],
    routes,
    sysctls: { ipForward: true, routeLocalnet: true },
    ...(family === 4 ? { rules } : { rules6: rules }),
  };
}

function gateway4(ip: string): string {
  const parts = ip.split('.');
  parts[3] = '1';
  return parts.join('.');
}

/** An address of the same /64 as `ip` for the gateway: `2001:db8::1` -> `2001:db8::fffe`. */
function gateway6(ip: string): string {
  if (ip.includes('::')) return `${ip.split('::')[0] ?? ''}::fffe`;
  return ip.replace(/[0-9a-f]+$/i, 'fffe');
}

export function flowProbe(flow: Flow, localAddresses: readonly string[]): ProbeSpec {
  const proto = (flow.protocol ?? 'tcp').toLowerCase() as 'tcp' | 'udp' | 'sctp';
  if (localAddresses.includes(flow.sourceIP)) {
    return {
      kind: 'connect',
      from: 'test-node',
      proto,
      dst: flow.destIP,
      dport: flow.destPort,
      src: flow.sourceIP,
      sport: 33333,
    };
  }
  return {
    kind: 'inject',
    host: 'test-node',
    iface: 'eth0',
    packet: {
      proto,
      src: flow.sourceIP,
      dst: flow.destIP,
      sport: 33333,
      dport: flow.destPort,
      mark: 0,
      ttl: 64,
      ...(proto === 'tcp'
        ? { flags: { syn: true, ack: false, rst: false, fin: false, psh: false, urg: false } }
        : {}),
    },
  };
}

/** Reads the tracer's view off one run's events of the first packet on the node. */
function observe(events: readonly TraceEvent[]): { outputs: string[]; masq: boolean } {
  const outputs: string[] = [];
  let masq = false;
  for (const e of events) {
    if (e.packetId !== 1 || e.host !== 'test-node' || e.type !== 'rule') continue;
    if (e.target === 'KUBE-MARK-MASQ') masq = true;
    if (e.target === 'DNAT')
      outputs.push(
        e.packet.dst.includes(':')
          ? `[${e.packet.dst}]:${e.packet.dport}`
          : `${e.packet.dst}:${e.packet.dport}`,
      );
    else if (
      e.table === 'filter' &&
      TRACED_FILTER_CHAINS.has(e.chain) &&
      (e.verdict === 'ACCEPT' || e.verdict === 'DROP')
    ) {
      outputs.push(e.target === 'REJECT' ? 'REJECT' : e.verdict);
    }
  }
  return { outputs, masq };
}

export function runFlows(
  rules: string,
  localAddresses: readonly string[],
  flows: readonly Flow[],
  family: 4 | 6 = 4,
): FlowResult[] {
  return runFlowsOn(conformanceHost(rules, localAddresses, family), localAddresses, flows, observe);
}

/** What a flow's runs did, as the corpus writes it: the endpoints or verdicts, and masquerade. */
export type FlowObserver = (events: readonly TraceEvent[]) => { outputs: string[]; masq: boolean };

/**
 * Every flow through one host, every random branch followed: the outputs of all branches
 * (in order, once each) against the corpus' expected output.
 */
export function runFlowsOn(
  host: HostSpec,
  localAddresses: readonly string[],
  flows: readonly Flow[],
  observeRun: FlowObserver,
): FlowResult[] {
  const { network, problems } = buildNetwork({ hosts: [host] });
  if (!network) {
    const note = problems.map((p) => `${p.field}: ${p.message}`).join('; ');
    return flows.map((flow) => ({ flow, output: '', masq: false, pass: false, note }));
  }
  return flows.map((flow) => {
    const en = enumerateOutcomes(network, flowProbe(flow, localAddresses));
    const outputs: string[] = [];
    let masq = false;
    for (const run of en.runs) {
      const o = observeRun(run.events);
      for (const x of o.outputs) if (!outputs.includes(x)) outputs.push(x);
      masq ||= o.masq;
    }
    const output = outputs.join(', ');
    return { flow, output, masq, pass: output === flow.output && masq === flow.masq };
  });
}
