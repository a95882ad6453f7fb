/**
 * Calico's HostEndpoint and GlobalNetworkPolicy (projectcalico.org/v3, cluster-scoped), read and
 * validated as Calico's API server would (libcalico-go/lib/validator/v3/validator.go): every
 * problem is reported at its field with what to write instead.
 */
import { canonicalIp, parseCidr } from '../../engine/index.ts';
import {
  isSelectorError,
  KNOWN_PROFILE,
  parseSelector,
  type CalicoProtocol,
  type CalicoRule,
  type EntityRule,
  type GlobalNetworkPolicyModel,
  type HostEndpointModel,
  type PortRange,
  type Selector,
} from '../calico/index.ts';
import type { Path, Reader } from './reader.ts';
import type { ClusterSettings } from './types.ts';

export const CALICO_API_VERSION = 'projectcalico.org/v3';
export const CALICO_KINDS = ['HostEndpoint', 'GlobalNetworkPolicy'] as const;

function unknownFields(r: Reader, path: Path, allowed: readonly string[], what: string): void {
  for (const k of Object.keys(r.map(path)))
    if (!allowed.includes(k))
      r.report(
        [...path, k],
        `'${k}' is not a field of ${what} the lab reads; use ${allowed.join(', ')}`,
        'error',
        true,
      );
}

function selector(r: Reader, path: Path, required = false): Selector | null {
  const text = r.str(
    path,
    required ? { required: true, what: "for example node-role == 'core'" } : {},
  );
  if (text === undefined) return null;
  const sel = parseSelector(text);
  if (isSelectorError(sel)) {
    r.report(path, `selector: ${sel.message} (at character ${sel.at + 1} of '${text}')`);
    return null;
  }
  return sel;
}

function nets(r: Reader, path: Path): string[] {
  return r.list(path).flatMap((v, i) => {
    const c =
      typeof v === 'string'
        ? parseCidr(v.includes('/') ? v : `${v}/${v.includes(':') ? 128 : 32}`)
        : null;
    if (!c) {
      r.report([...path, i], `'${String(v)}' is not a CIDR like 10.244.0.0/16`);
      return [];
    }
    return [c.text];
  });
}

/** numorstring.Port: a number, or "first:last"; a name would be a named port. */
function ports(r: Reader, path: Path): PortRange[] {
  return r.list(path).flatMap((v, i) => {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 65535)
      return [{ first: v, last: v }];
    if (typeof v === 'string') {
      const m = /^(\d+):(\d+)$/.exec(v);
      if (m && Number(m[1]) <= Number(m[2]) && Number(m[2]) <= 65535)
        return [{ first: Number(m[1]), last: Number(m[2]) }];
      if (/^\d+\s*-\s*\d+$/.test(v)) {
        r.report(
          [...path, i],
          `'${v}' is not a port: Calico writes a range with a colon, '${v.replace(/\s*-\s*/, ':')}' (with a dash it would be read as a named port, which may not be all digits)`,
        );
        return [];
      }
      if (/^\d+$/.test(v)) return [{ first: Number(v), last: Number(v) }];
      r.report(
        [...path, i],
        `'${v}' is a named port; the lab models numeric ports and ranges like 30000:32767 only`,
      );
      return [];
    }
    r.report([...path, i], `'${String(v)}' is not a port (0-65535) or a range like 30000:32767`);
    return [];
  });
}

const PROTOCOL_NAMES = ['TCP', 'UDP', 'ICMP', 'ICMPv6', 'SCTP', 'UDPLite'];

function protocol(r: Reader, path: Path): CalicoProtocol | null {
  const v = r.get(path);
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 255) return { number: v };
  if (typeof v === 'string' && PROTOCOL_NAMES.includes(v)) return { name: v };
  if (typeof v === 'string' && PROTOCOL_NAMES.some((p) => p.toLowerCase() === v.toLowerCase())) {
    const name = PROTOCOL_NAMES.find((p) => p.toLowerCase() === v.toLowerCase()) as string;
    return { name };
  }
  r.report(
    path,
    `'${String(v)}' is not a protocol: use ${PROTOCOL_NAMES.join(', ')} or a number 1-255`,
  );
  return null;
}

const ENTITY_FIELDS = ['nets', 'notNets', 'selector', 'notSelector', 'ports', 'notPorts'];

function entity(r: Reader, path: Path, portsOk: boolean): EntityRule {
  unknownFields(r, path, ENTITY_FIELDS, 'a rule source or destination');
  const e = {
    nets: nets(r, [...path, 'nets']),
    notNets: nets(r, [...path, 'notNets']),
    selector: selector(r, [...path, 'selector']),
    notSelector: selector(r, [...path, 'notSelector']),
    ports: ports(r, [...path, 'ports']),
    notPorts: ports(r, [...path, 'notPorts']),
  };
  for (const k of ['ports', 'notPorts'] as const)
    if (e[k].length && !portsOk)
      r.report(
        [...path, k],
        'rules with ports must set protocol to TCP, UDP, SCTP or UDPLite (Calico refuses ports otherwise)',
      );
  return e;
}

const RULE_FIELDS = ['action', 'protocol', 'notProtocol', 'source', 'destination', 'ipVersion'];

function rule(r: Reader, path: Path): CalicoRule | null {
  unknownFields(r, path, RULE_FIELDS, 'a policy rule');
  const action = r.str([...path, 'action'], {
    required: true,
    enum: ['Allow', 'Deny', 'Log', 'Pass'],
    what: 'Allow, Deny, Log or Pass',
  }) as CalicoRule['action'] | undefined;
  const proto = protocol(r, [...path, 'protocol']);
  const portsOk =
    proto !== null && 'name' in proto && ['TCP', 'UDP', 'SCTP', 'UDPLite'].includes(proto.name);
  const rl: CalicoRule = {
    action: action ?? 'Allow',
    protocol: proto,
    notProtocol: protocol(r, [...path, 'notProtocol']),
    source: entity(r, [...path, 'source'], portsOk),
    destination: entity(r, [...path, 'destination'], portsOk),
  };
  return action ? rl : null;
}

function objectFields(r: Reader, kind: string, spec: readonly string[]): void {
  const v = r.doc.value as Record<string, unknown>;
  for (const k of Object.keys(v))
    if (!['apiVersion', 'kind', 'metadata', 'spec'].includes(k))
      r.report([k], `'${k}' is not a field of a ${kind}; put settings under spec:`, 'error', true);
  unknownFields(r, ['spec'], spec, `a ${kind} spec`);
  if (r.get(['metadata', 'namespace']) !== undefined)
    r.report(
      ['metadata', 'namespace'],
      `a ${kind} is cluster-wide: remove the namespace`,
      'warning',
    );
  r.str(['apiVersion'], { enum: [CALICO_API_VERSION] });
}

export function readHostEndpoint(
  r: Reader,
  name: string,
  cluster: ClusterSettings,
): HostEndpointModel | null {
  objectFields(r, 'HostEndpoint', ['node', 'interfaceName', 'expectedIPs', 'profiles']);
  const labels = r.labels(['metadata', 'labels']);
  const node = r.str(['spec', 'node'], { required: true, what: 'the node this interface is on' });
  if (node !== undefined && !cluster.nodes.some((n) => n.name === node))
    r.report(
      ['spec', 'node'],
      `no node named ${node}; the nodes are ${cluster.nodes.map((n) => n.name).join(', ')}`,
    );
  const interfaceName = r.str(['spec', 'interfaceName']) ?? '';
  const expectedIPs = r.list(['spec', 'expectedIPs']).flatMap((v, i) => {
    const ip = typeof v === 'string' ? canonicalIp(v) : null;
    if (!ip) r.report(['spec', 'expectedIPs', i], `'${String(v)}' is not an IP address`);
    return ip ? [ip] : [];
  });
  if (!interfaceName && !r.list(['spec', 'expectedIPs']).length)
    r.report(
      ['spec'],
      'a HostEndpoint needs interfaceName (a name like eth0, or *) or expectedIPs',
    );
  const profiles = r.list(['spec', 'profiles']).flatMap((v, i) => {
    if (typeof v === 'string' && KNOWN_PROFILE(v)) return [v];
    r.report(
      ['spec', 'profiles', i],
      `the lab knows the profiles projectcalico-default-allow, kns.<namespace> and ksa.<namespace>.<serviceaccount>; '${String(v)}' is not one of them`,
    );
    return [];
  });
  if (node === undefined || !cluster.nodes.some((n) => n.name === node)) return null;
  return { name, node, interfaceName, expectedIPs, labels, profiles };
}

export function readGlobalNetworkPolicy(r: Reader, name: string): GlobalNetworkPolicyModel | null {
  objectFields(r, 'GlobalNetworkPolicy', [
    'order',
    'selector',
    'types',
    'ingress',
    'egress',
    'preDNAT',
    'applyOnForward',
    'doNotTrack',
    'tier',
  ]);
  const o = r.get(['spec', 'order']);
  let order: number | null = null;
  if (typeof o === 'number' && Number.isFinite(o)) order = o;
  else if (o !== undefined && o !== null)
    r.report(['spec', 'order'], `must be a number, not ${JSON.stringify(o)}`);
  const tier = r.str(['spec', 'tier']);
  if (tier !== undefined && tier !== 'default')
    r.report(
      ['spec', 'tier'],
      'the lab models the default tier only; remove tier or write default',
    );
  const sel = selector(r, ['spec', 'selector']) ?? ({ kind: 'all' } as const);
  const ingress = r
    .list(['spec', 'ingress'])
    .flatMap((_, i) => rule(r, ['spec', 'ingress', i]) ?? []);
  const egress = r.list(['spec', 'egress']).flatMap((_, i) => rule(r, ['spec', 'egress', i]) ?? []);
  const preDNAT = r.bool(['spec', 'preDNAT']) ?? false;
  const doNotTrack = r.bool(['spec', 'doNotTrack']) ?? false;
  const applyOnForward = r.bool(['spec', 'applyOnForward']) ?? false;
  const typeList = r.list(['spec', 'types']).flatMap((v, i): ('Ingress' | 'Egress')[] => {
    if (v === 'Ingress' || v === 'Egress') return [v];
    r.report(['spec', 'types', i], `'${String(v)}' is not Ingress or Egress`);
    return [];
  });
  // Defaulting (v3 API): Ingress, plus Egress when there are egress rules.
  const types: ('Ingress' | 'Egress')[] = r.get(['spec', 'types'])
    ? typeList
    : egress.length
      ? ['Ingress', 'Egress']
      : ['Ingress'];
  if (preDNAT && doNotTrack)
    r.report(['spec', 'preDNAT'], 'preDNAT and doNotTrack cannot both be true');
  if ((preDNAT || doNotTrack) && !applyOnForward)
    r.report(
      ['spec', preDNAT ? 'preDNAT' : 'doNotTrack'],
      `${preDNAT ? 'preDNAT' : 'doNotTrack'} policy needs applyOnForward: true (Calico refuses it otherwise)`,
    );
  if (preDNAT && (egress.length || types.includes('Egress')))
    r.report(
      ['spec', egress.length ? 'egress' : 'types'],
      'a preDNAT policy applies to ingress only: remove its egress rules and type',
    );
  return {
    name,
    order,
    selector: sel,
    types,
    ingress,
    egress,
    preDNAT,
    applyOnForward,
    doNotTrack,
  };
}
