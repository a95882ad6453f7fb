/**
 * Workloads (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet) become pods placed on nodes the
 * way the scheduler would decide for what matters here: nodeName, nodeSelector, taints and
 * tolerations; replicas spread over the eligible nodes in order. Pod names and IPs are
 * deterministic so scenarios stay reproducible.
 */
import { formatIPv4, parseCidr, parseIPv4 } from '../../engine/index.ts';
import type { Protocol } from '../model.ts';
import type { Path, Reader } from './reader.ts';
import { sha256Text } from './sha256.ts';
import type { ClusterSettings, ContainerPort, NodeInfo, PodModel, Taint } from './types.ts';

export const ANNOTATION_PREFIX = 'lab.hookpath.io/';
const WORKLOAD_KINDS = ['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export function isWorkloadKind(kind: string): kind is WorkloadKind {
  return (WORKLOAD_KINDS as readonly string[]).includes(kind);
}

interface Toleration {
  readonly key: string | null;
  readonly operator: 'Equal' | 'Exists';
  readonly value: string;
  readonly effect: string | null;
}

interface PodTemplate {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly ports: ContainerPort[];
  readonly nodeName: string | null;
  readonly nodeSelector: Record<string, string>;
  readonly tolerations: Toleration[];
}

export interface Workload {
  readonly kind: WorkloadKind;
  readonly namespace: string;
  readonly name: string;
  readonly replicas: number;
  readonly template: PodTemplate;
  readonly reader: Reader;
  readonly templatePath: Path;
}

/** Reads a workload's pod template; problems go to the reader. */
// eslint-disable-next-line max-lines-per-function -- reads a workload's fields top to bottom, as the API documents them
export function readWorkload(
  r: Reader,
  kind: WorkloadKind,
  namespace: string,
  name: string,
): Workload {
  const tp: Path = kind === 'Pod' ? [] : ['spec', 'template'];
  const spec: Path = [...tp, 'spec'];
  const labels =
    kind === 'Pod' ? r.labels(['metadata', 'labels']) : r.labels([...tp, 'metadata', 'labels']);
  const annotations =
    kind === 'Pod'
      ? r.labels(['metadata', 'annotations'])
      : r.labels([...tp, 'metadata', 'annotations']);
  if (kind !== 'Pod') {
    const selector = r.labels(['spec', 'selector', 'matchLabels']);
    if (kind !== 'ReplicaSet' || Object.keys(selector).length) {
      if (!Object.keys(selector).length)
        r.report(['spec', 'selector'], `${kind} needs spec.selector.matchLabels`, 'error');
      for (const [k, v] of Object.entries(selector)) {
        if (labels[k] !== v)
          r.report(
            ['spec', 'selector', 'matchLabels', k],
            `selector ${k}=${v} does not match the template's labels; the API server rejects this ${kind}`,
          );
      }
    }
  }
  const ports: ContainerPort[] = [];
  const containers = r.list([...spec, 'containers']);
  if (!containers.length) r.report(spec, 'spec.containers needs at least one container');
  containers.forEach((_, ci) => {
    r.str([...spec, 'containers', ci, 'name'], { required: true });
    r.list([...spec, 'containers', ci, 'ports']).forEach((__, pi) => {
      const pp: Path = [...spec, 'containers', ci, 'ports', pi];
      const port = r.int([...pp, 'containerPort'], { required: true, min: 1, max: 65535 });
      const pname = r.str([...pp, 'name'], { name: { rule: 'port-name', what: 'a port name' } });
      const protocol = (r.str([...pp, 'protocol'], { enum: ['TCP', 'UDP', 'SCTP'] }) ??
        'TCP') as Protocol;
      if (port !== undefined) ports.push({ name: pname ?? null, port, protocol });
    });
  });
  const listen = annotations[`${ANNOTATION_PREFIX}listen`];
  if (listen) {
    for (const item of listen.split(',')) {
      const m = /^\s*(\d{1,5})(?:\/(tcp|udp|sctp))?\s*$/i.exec(item);
      if (!m) {
        r.report(
          kind === 'Pod' ? ['metadata', 'annotations'] : [...tp, 'metadata', 'annotations'],
          `${ANNOTATION_PREFIX}listen: write ports like "80,53/udp", not '${item}'`,
        );
        continue;
      }
      ports.push({
        name: null,
        port: Number(m[1]),
        protocol: (m[2]?.toUpperCase() ?? 'TCP') as Protocol,
      });
    }
  }
  const tolerations: Toleration[] = r.list([...spec, 'tolerations']).map((_, i) => {
    const tp2: Path = [...spec, 'tolerations', i];
    return {
      key: r.str([...tp2, 'key']) ?? null,
      operator: (r.str([...tp2, 'operator'], { enum: ['Equal', 'Exists'] }) ?? 'Equal') as
        'Equal' | 'Exists',
      value: r.str([...tp2, 'value']) ?? '',
      effect:
        r.str([...tp2, 'effect'], { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] }) ??
        null,
    };
  });
  if (r.get([...spec, 'affinity']) !== undefined) {
    r.report(
      [...spec, 'affinity'],
      'affinity is not modelled; nodeSelector, nodeName and tolerations are',
      'warning',
      true,
    );
  }
  const replicas =
    kind === 'Pod' || kind === 'DaemonSet'
      ? 1
      : (r.int(['spec', 'replicas'], {
          min: 0,
          max: 100,
          what: 'the lab runs at most 100 replicas',
        }) ?? 1);
  return {
    kind,
    namespace,
    name,
    replicas,
    reader: r,
    templatePath: tp,
    template: {
      labels,
      annotations,
      ports,
      nodeName: r.str([...spec, 'nodeName']) ?? null,
      nodeSelector: r.labels([...spec, 'nodeSelector']),
      tolerations,
    },
  };
}

function tolerates(t: Taint, tols: readonly Toleration[]): boolean {
  return tols.some(
    (tol) =>
      (tol.effect === null || tol.effect === t.effect) &&
      (tol.key === null
        ? tol.operator === 'Exists'
        : tol.key === t.key && (tol.operator === 'Exists' || tol.value === t.value)),
  );
}

/** Why a node cannot run the template, or null when it can. */
function unfit(node: NodeInfo, tpl: PodTemplate): string | null {
  for (const [k, v] of Object.entries(tpl.nodeSelector)) {
    if (node.labels[k] !== v) return `nodeSelector ${k}=${v}`;
  }
  const t = node.taints.find(
    (x) => x.effect !== 'PreferNoSchedule' && !tolerates(x, tpl.tolerations),
  );
  return t ? `taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}` : null;
}

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Pod-name suffixes in the style of the ReplicaSet controller (`nettest-7f9c6d5b8-x2k4p`), deterministic. */
function suffix(seed: string, len: 5 | 10): string {
  const memo = len === 5 ? suffixes5 : suffixes10;
  const hit = memo.get(seed);
  if (hit !== undefined) return hit;
  if (memo.size >= 200_000) memo.clear();
  const h = sha256Text(seed);
  let s = '';
  for (let i = 0; i < len; i++) s += NAME_ALPHABET[(h[i] as number) % NAME_ALPHABET.length];
  memo.set(seed, s);
  return s;
}

/** Suffixes by seed, per length: every re-simulation names the same pods again. */
const suffixes5 = new Map<string, string>();
const suffixes10 = new Map<string, string>();

/** Places every workload's pods and gives them addresses from their node's pod CIDR. */
// eslint-disable-next-line max-lines-per-function -- the scheduler's steps per workload (node selector, taints, spread), in order
export function schedule(workloads: readonly Workload[], cluster: ClusterSettings): PodModel[] {
  const pods: PodModel[] = [];
  const nextIp = new Map<string, number>();
  const cidrs = new Map<string, ReturnType<typeof parseCidr>>();
  const takeIp = (node: NodeInfo): string | null => {
    let c = cidrs.get(node.podCIDR);
    if (c === undefined) cidrs.set(node.podCIDR, (c = parseCidr(node.podCIDR)));
    if (!c || c.family !== 4) return null;
    const n = nextIp.get(node.name) ?? 10;
    nextIp.set(node.name, n + 1);
    return formatIPv4(((c.addr as number) + n) >>> 0);
  };
  for (const w of workloads) {
    const tpl = w.template;
    const reply = tpl.annotations[`${ANNOTATION_PREFIX}reply`];
    const ready = tpl.annotations[`${ANNOTATION_PREFIX}ready`] !== 'false';
    const terminating = tpl.annotations[`${ANNOTATION_PREFIX}terminating`] === 'true';
    const fixedIp = tpl.annotations[`${ANNOTATION_PREFIX}ip`];
    if (fixedIp !== undefined && parseIPv4(fixedIp) === null)
      w.reader.report(
        w.templatePath.length
          ? [...w.templatePath, 'metadata', 'annotations']
          : ['metadata', 'annotations'],
        `${ANNOTATION_PREFIX}ip: '${fixedIp}' is not an IPv4 address`,
      );
    let candidates: NodeInfo[];
    const reasons: string[] = [];
    if (tpl.nodeName) {
      const n = cluster.nodes.find((x) => x.name === tpl.nodeName);
      if (!n)
        w.reader.report(
          [...w.templatePath, 'spec', 'nodeName'],
          `no node named '${tpl.nodeName}' in this cluster (nodes: ${cluster.nodes.map((x) => x.name).join(', ')})`,
        );
      // nodeName bypasses the scheduler: taints with NoSchedule do not apply.
      candidates = n ? [n] : [];
    } else {
      candidates = cluster.nodes.filter((n) => {
        const why = unfit(n, tpl);
        if (why) reasons.push(`${n.name} (${why})`);
        return why === null;
      });
    }
    const seed = `${w.namespace}/${w.name}`;
    // The pod-template hash of a Deployment's ReplicaSet (its pods' middle name part).
    const hashBase = w.kind === 'Deployment' ? suffix(seed, 10).slice(0, 9) : '';
    const count = w.kind === 'DaemonSet' ? candidates.length : w.replicas;
    for (let i = 0; i < count; i++) {
      const node = candidates.length ? (candidates[i % candidates.length] as NodeInfo) : null;
      let name: string;
      if (w.kind === 'Pod') name = w.name;
      else if (w.kind === 'StatefulSet') name = `${w.name}-${i}`;
      else if (w.kind === 'Deployment') name = `${w.name}-${hashBase}-${suffix(`${seed}#${i}`, 5)}`;
      else name = `${w.name}-${suffix(`${seed}#${node?.name ?? i}`, 5)}`;
      pods.push({
        namespace: w.namespace,
        name,
        workload: w.name,
        workloadKind: w.kind,
        node: node?.name ?? null,
        ip: node
          ? i === 0 && fixedIp && parseIPv4(fixedIp) !== null
            ? fixedIp
            : takeIp(node)
          : null,
        labels: tpl.labels,
        ports: tpl.ports,
        ready: ready && node !== null,
        terminating,
        reply: reply ?? name,
        pending: node
          ? null
          : tpl.nodeName
            ? `node ${tpl.nodeName} does not exist`
            : `no node fits: ${reasons.join(', ')}`,
      });
    }
    if (count > 0 && !candidates.length && !tpl.nodeName) {
      w.reader.report(
        w.templatePath.length ? [...w.templatePath, 'spec'] : ['spec'],
        `no node can run these pods: ${reasons.join('; ')}. Add a toleration or change nodeSelector.`,
        'warning',
      );
    }
  }
  return pods;
}
