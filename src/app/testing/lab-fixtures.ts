/**
 * LabResult fixtures for the app's tests, built from the real engine on the VIP:22 homelab of
 * DOMAIN §1 (src/engine/testing/vip22.ts). Tests only: the product runs src/cluster's runLab.
 */
import { buildNetwork, enumerateOutcomes } from '../../engine/index.ts';
import {
  CLIENT_IP,
  LB_RULES,
  NODE_IP,
  POD_IP,
  VIP,
  WORKER_IP,
  vip22Network,
} from '../../engine/testing/vip22.ts';
import type { ClusterView, PathChoices } from '../../cluster/types.ts';
import { labView, workerView, type LabView, type WorkerView } from '../worker/view.ts';
import type { LabResult } from '../../cluster/types.ts';

/** filter INPUT drops ssh: the client times out (for the drop visual). */
export const DROP_SSH_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 22 -j DROP
COMMIT
`;

export const vip22Cluster: ClusterView = {
  hosts: [
    host('client', 'client', [CLIENT_IP], null, []),
    host('cp-1', 'node', [NODE_IP, VIP], null, [
      { name: 'sshd', proto: 'tcp', address: '0.0.0.0', port: 22 },
    ]),
    host('worker-1', 'node', [WORKER_IP], null, []),
    host('nettest', 'pod', [POD_IP], 'worker-1', [
      { name: 'nettest', proto: 'tcp', address: '0.0.0.0', port: 80 },
    ]),
  ],
  links: [
    { a: 'client', aIf: 'eth0', b: 'cp-1', bIf: 'eth0', segment: 'lan' },
    { a: 'client', aIf: 'eth0', b: 'worker-1', bIf: 'eth0', segment: 'lan' },
    { a: 'cp-1', aIf: 'eth0', b: 'worker-1', bIf: 'eth0', segment: 'lan' },
    { a: 'worker-1', aIf: 'veth-nettest', b: 'nettest', bIf: 'eth0', segment: 'veth-nettest' },
  ],
  vips: [{ ip: VIP, mode: 'kube-vip', holder: 'cp-1' }],
};

function host(
  name: string,
  kind: 'client' | 'node' | 'pod',
  ips: string[],
  node: string | null,
  processes: ClusterView['hosts'][number]['processes'],
): ClusterView['hosts'][number] {
  return {
    name,
    kind,
    ips,
    node,
    workload: kind === 'pod' ? name : null,
    namespace: kind === 'pod' ? 'default' : null,
    zone: null,
    roles: kind === 'node' && name.startsWith('cp') ? ['control-plane'] : [],
    processes,
  };
}

export const vip22Choices: PathChoices = {
  senders: [
    { id: 'client/client', kind: 'client', label: 'client (192.168.50.10)', host: 'client' },
    { id: 'node/cp-1', kind: 'node', label: 'cp-1', host: 'cp-1' },
    { id: 'pod/nettest', kind: 'pod', label: 'nettest', host: 'nettest' },
  ],
  destinations: [
    {
      id: 'vip:22',
      kind: 'vip',
      label: 'VIP 192.168.50.100:22',
      address: VIP,
      port: 22,
      proto: 'tcp',
    },
    {
      id: 'node/cp-1:22',
      kind: 'node',
      label: 'cp-1 192.168.50.38:22',
      address: NODE_IP,
      port: 22,
      proto: 'tcp',
    },
    {
      id: 'pod/nettest:80',
      kind: 'pod',
      label: 'nettest 10.244.1.5:80',
      address: POD_IP,
      port: 80,
      proto: 'tcp',
    },
  ],
};

/** Runs the real engine on the homelab with the given cp-1 rules; the view the page gets. */
export function vip22Result(
  rules: string | null,
  dst: { address: string; port: number; id: string } = { address: VIP, port: 22, id: 'vip:22' },
): LabView {
  return labView(vip22Lab(rules, dst));
}

/** The same run as the worker keeps it (every path choice, for its result cache). */
export const vip22WorkerView = (rules: string | null): WorkerView => workerView(vip22Lab(rules));

function vip22Lab(
  rules: string | null,
  dst: { address: string; port: number; id: string } = { address: VIP, port: 22, id: 'vip:22' },
): LabResult {
  const { network } = buildNetwork(vip22Network(rules));
  if (!network) throw new Error('fixture network does not build');
  const e = enumerateOutcomes(network, {
    kind: 'connect',
    from: 'client',
    proto: 'tcp',
    dst: dst.address,
    dport: dst.port,
  });
  return {
    ok: true,
    diagnostics: [],
    cluster: vip22Cluster,
    choices: vip22Choices,
    probe: {
      from: 'client/client',
      to: dst.id,
      address: dst.address,
      port: dst.port,
      proto: 'tcp',
    },
    runs: e.runs.map((r) => ({
      probability: r.probability,
      outcome: r.outcome,
      events: r.events,
      choices: r.choices,
    })),
    rules: { 'cp-1': rules ?? '', 'worker-1': '' },
  };
}

/** No LoadBalancer Service on port 22: the VIP is local, sshd answers. */
export const sshdResult = (): LabView => vip22Result(null);
/** lb-port22-test exists: kube-proxy DNATs VIP:22 to the pod, MASQUERADE on the way out. */
export const podResult = (): LabView => vip22Result(LB_RULES);
export const podWorkerView = (): WorkerView => vip22WorkerView(LB_RULES);
export const sshdWorkerView = (): WorkerView => vip22WorkerView(null);
/** A DROP rule in filter INPUT: silence, the client times out. */
export const dropResult = (): LabView => vip22Result(DROP_SSH_RULES);

/** A result for manifests that do not parse: what runLab returns with diagnostics. */
export function brokenResult(line: number, message: string): LabView {
  return {
    ok: false,
    diagnostics: [
      {
        severity: 'error',
        source: 'manifests',
        line,
        column: 1,
        endLine: line,
        endColumn: 20,
        field: '',
        message,
      },
    ],
    cluster: null,
    choices: null,
    probe: null,
    runs: [],
    rules: {},
    nftables: {},
  };
}
