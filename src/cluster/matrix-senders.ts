/**
 * The rows of the probe matrix: who sends. The scenario's clients, one pod of each workload on
 * each node it runs on (a pod's node decides what a NodePort or a Local policy does to it), each
 * node, and any other sender a probe of the scenario names (`node/cp-1/sshd`, a pod by name).
 */
import { resolveSender } from './targets.ts';
import type { ProbeDef } from './scenario.ts';
import type { BuiltCluster } from './topology.ts';
import type { HostKind } from './types.ts';

export interface MatrixSender {
  /** A sender of the path vocabulary: `client/external`, `pod/web@edge-1`, `node/core-1`. */
  readonly id: string;
  readonly kind: HostKind;
  /** `pod-a (core-1)`, `core-1`. */
  readonly label: string;
  /** The host that sends. */
  readonly host: string;
  /** The node the sender is (or runs on); null for clients. */
  readonly node: string | null;
  /** A probe of the scenario sends from here. */
  readonly probed: boolean;
}

const ORDER: readonly HostKind[] = ['client', 'router', 'pod', 'node'];

/** `host|process` of a sender id, the key probes and rows are matched by; null if it does not resolve. */
export function senderKey(c: BuiltCluster, from: string): string | null {
  const r = resolveSender(c, from);
  return 'error' in r ? null : `${r.ok.host}|${r.ok.process}`;
}

export function matrixSenders(c: BuiltCluster, probes: readonly ProbeDef[]): MatrixSender[] {
  const probeHosts = new Map<string, string>();
  for (const p of probes) {
    const k = senderKey(c, p.from);
    if (k) probeHosts.set(k, p.from);
  }
  const out: MatrixSender[] = [];
  const seen = new Set<string>();
  const add = (s: Omit<MatrixSender, 'probed'>, process: string) => {
    const k = `${s.host}|${process}`;
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ ...s, probed: probeHosts.has(k) });
  };
  const hosts = c.view.hosts;
  // Pods of a workload spread over several nodes get `@NODE`; a lone pod or one node: its name.
  const nodesOf = new Map<string, Set<string>>();
  for (const h of hosts)
    if (h.kind === 'pod' && h.workload)
      (nodesOf.get(h.workload) ?? nodesOf.set(h.workload, new Set()).get(h.workload))?.add(
        h.node ?? '',
      );
  const podSeen = new Set<string>();
  for (const h of hosts) {
    if (h.kind === 'client')
      add(
        { id: `client/${h.name}`, kind: 'client', label: h.name, host: h.name, node: null },
        'curl',
      );
    else if (h.kind === 'node')
      add(
        { id: `node/${h.name}`, kind: 'node', label: h.name, host: h.name, node: h.name },
        'curl',
      );
    else if (h.kind === 'pod') {
      const group = h.workload ?? h.name;
      const key = `${group}@${h.node ?? ''}`;
      if (podSeen.has(key)) continue;
      podSeen.add(key);
      const many = h.workload !== null && (nodesOf.get(h.workload)?.size ?? 0) > 1;
      const id = `pod/${many ? `${group}@${h.node ?? ''}` : group}`;
      // The name must lead back to this very pod (a standalone pod named like a workload would not).
      const host = senderKey(c, id)?.split('|')[0];
      add(
        {
          id: host === h.name ? id : `pod/${h.name}`,
          kind: 'pod',
          label: `${group} (${h.node ?? ''})`,
          host: h.name,
          node: h.node,
        },
        'app',
      );
    }
  }
  // Senders only a probe names (a node's own process, a pod picked by its name).
  for (const p of probes) {
    const k = senderKey(c, p.from);
    if (!k) continue;
    const [hostName, process] = k.split('|') as [string, string];
    const h = hosts.find((x) => x.name === hostName);
    if (!h) continue;
    add(
      {
        id: p.from,
        kind: h.kind,
        label: p.from.split('/').slice(1).join('/'),
        host: h.name,
        node: h.kind === 'node' ? h.name : h.node,
      },
      process,
    );
  }
  return out
    .map((s, i) => ({ s, i }))
    .sort((a, b) => ORDER.indexOf(a.s.kind) - ORDER.indexOf(b.s.kind) || a.i - b.i)
    .map((x) => x.s);
}
