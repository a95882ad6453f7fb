/** Test helpers: one node on a LAN with a client, built from a few lines of rules. */
import {
  buildNetwork,
  enumerateOutcomes,
  hostProblemText,
  simulate,
  xtablesNotation,
  type HostSpec,
  type Network,
  type Simulation,
} from '../index.ts';

export const NODE = '192.168.1.10';
export const CLIENT = '192.168.1.20';

/** Wraps rule lines of one table into an iptables-save document. */
export function table(name: string, chains: string[], rules: string[]): string {
  return [
    `*${name}`,
    ...chains.map((c) => (c.includes(' ') ? `:${c}` : `:${c} - [0:0]`)),
    ...rules,
    'COMMIT',
    '',
  ].join('\n');
}

export function lanNetwork(
  node: Partial<HostSpec> & { rules?: string },
  extraHosts: HostSpec[] = [],
): Network {
  const client: HostSpec = {
    name: 'client',
    interfaces: [{ name: 'eth0', addresses: [`${CLIENT}/24`], segment: 'lan' }],
  };
  const spec: HostSpec = {
    name: 'node',
    interfaces: [{ name: 'eth0', addresses: [`${NODE}/24`], segment: 'lan' }],
    sysctls: { ipForward: true },
    listeners: [
      {
        process: 'sshd',
        proto: 'tcp',
        address: '0.0.0.0',
        port: 22,
        reply: 'SSH-2.0-OpenSSH_10.3',
      },
    ],
    ...node,
  };
  const { network, problems } = buildNetwork({ hosts: [client, spec, ...extraHosts] });
  if (!network)
    throw new Error(
      problems.map((p) => `${p.source ?? ''} ${p.field ?? ''}: ${hostProblemText(p)}`).join('\n'),
    );
  return network;
}

export function connect(
  net: Network,
  dst: string,
  dport: number,
  opts: { from?: string; proto?: 'tcp' | 'udp'; seed?: number } = {},
): Simulation {
  return simulate(
    net,
    { kind: 'connect', from: opts.from ?? 'client', proto: opts.proto ?? 'tcp', dst, dport },
    { seed: opts.seed ?? 1 },
  );
}

/** The xtables-monitor style lines of one host for one packet. */
export function notation(sim: Simulation, host: string, packetId = 1): string[] {
  return sim.events
    .filter((e) => e.host === host && e.packetId === packetId)
    .flatMap((e) => xtablesNotation(e) ?? []);
}

export function outcomes(
  net: Network,
  dst: string,
  dport: number,
  from = 'client',
): Map<string, number> {
  const en = enumerateOutcomes(net, { kind: 'connect', from, proto: 'tcp', dst, dport });
  const m = new Map<string, number>();
  for (const r of en.runs) {
    const o = r.outcome;
    const k = o.kind === 'answered' ? `${o.host}:${o.reply}` : o.kind;
    m.set(k, (m.get(k) ?? 0) + r.probability);
  }
  return m;
}
