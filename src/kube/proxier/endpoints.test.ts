import { describe, expect, it } from 'vitest';
import type { EndpointSliceModel } from '../model.ts';
import { buildEndpointsMap, categorizeEndpoints, servicePortKey } from './endpoints.ts';
import { endpoint } from './fixtures/build.ts';

const KEY = servicePortKey('ns', 'svc', 'p80', 'TCP');
const CLUSTER = { usesClusterEndpoints: true, usesLocalEndpoints: false };
const BOTH = { usesClusterEndpoints: true, usesLocalEndpoints: true };
const LOCAL_ONLY = { usesClusterEndpoints: false, usesLocalEndpoints: true };

function slices(...eps: ReturnType<typeof endpoint>[][]): EndpointSliceModel[] {
  return eps.map((endpoints) => ({
    namespace: 'ns',
    service: 'svc',
    addressType: 'IPv4',
    endpoints,
    ports: [{ name: 'p80', port: 80, protocol: 'TCP' }],
  }));
}

const texts = (eps: readonly { text: string }[] | null) => (eps ?? []).map((e) => e.text);

describe('EndpointSlices to the endpoints map (endpointslicecache.go)', () => {
  it('sorts endpoints by their ip:port text, as Go strings', () => {
    const m = buildEndpointsMap(
      slices([endpoint('10.0.1.2'), endpoint('10.0.1.10'), endpoint('10.0.0.9')]),
      4,
      'node-a',
    );
    expect(texts(m.get(KEY) ?? [])).toEqual(['10.0.0.9:80', '10.0.1.10:80', '10.0.1.2:80']);
  });

  it('normalises leading zeros and keeps only the proxier family', () => {
    const v4 = slices([endpoint('10.0.1.010')]);
    const v6: EndpointSliceModel = { ...(v4[0] as EndpointSliceModel), addressType: 'IPv6' };
    const six = { ...v6, endpoints: [endpoint('fd00:0::1')] };
    expect(texts(buildEndpointsMap([...v4, six], 4, 'n').get(KEY) ?? [])).toEqual(['10.0.1.10:80']);
    expect(texts(buildEndpointsMap([...v4, six], 6, 'n').get(KEY) ?? [])).toEqual(['[fd00::1]:80']);
  });

  it('keys by port name and protocol, and skips port 0', () => {
    const s = slices([endpoint('10.0.0.1')])[0] as EndpointSliceModel;
    const udp: EndpointSliceModel = { ...s, ports: [{ name: 'p80', port: 80, protocol: 'UDP' }] };
    const zero: EndpointSliceModel = { ...s, ports: [{ name: 'x', port: 0, protocol: 'TCP' }] };
    const m = buildEndpointsMap([udp, zero], 4, 'n');
    expect(m.has(KEY)).toBe(false);
    expect(m.has(servicePortKey('ns', 'svc', 'p80', 'UDP'))).toBe(true);
    expect(m.has(servicePortKey('ns', 'svc', 'x', 'TCP'))).toBe(false);
  });

  it('never lets a terminating duplicate replace an endpoint (IP reuse)', () => {
    const running = endpoint('10.0.0.1', { nodeName: 'node-a' });
    const old = endpoint('10.0.0.1', { ready: false, terminating: true, nodeName: 'node-b' });
    const m = buildEndpointsMap(slices([running], [old]), 4, 'node-a');
    expect(m.get(KEY)?.[0]?.local).toBe(true);
    const m2 = buildEndpointsMap(slices([old], [running]), 4, 'node-a');
    expect(m2.get(KEY)?.[0]?.local).toBe(true);
  });

  it('marks endpoints on this node local, never those without a node name', () => {
    const m = buildEndpointsMap(
      slices([endpoint('10.0.0.1', { nodeName: 'node-a' }), endpoint('10.0.0.2')]),
      4,
      'node-a',
    );
    expect(m.get(KEY)?.map((e) => e.local)).toEqual([true, false]);
  });
});

describe('CategorizeEndpoints (topology.go)', () => {
  const map = (...eps: ReturnType<typeof endpoint>[]) =>
    buildEndpointsMap(slices(eps), 4, 'node-a').get(KEY) ?? [];

  it('uses ready endpoints, else serving-and-terminating ones', () => {
    const ready = map(
      endpoint('10.0.0.1'),
      endpoint('10.0.0.2', { ready: false, terminating: true }),
    );
    expect(texts(categorizeEndpoints(ready, CLUSTER, 'node-a', '').cluster)).toEqual([
      '10.0.0.1:80',
    ]);
    const terminating = map(
      endpoint('10.0.0.2', { ready: false, terminating: true }),
      endpoint('10.0.0.3', { ready: false, serving: false, terminating: true }),
    );
    const c = categorizeEndpoints(terminating, CLUSTER, 'node-a', '');
    expect(texts(c.cluster)).toEqual(['10.0.0.2:80']);
    expect(c.hasAny).toBe(true);
    const none = map(endpoint('10.0.0.3', { ready: false, serving: false, terminating: true }));
    expect(categorizeEndpoints(none, CLUSTER, 'node-a', '').hasAny).toBe(false);
  });

  it('falls back to local terminating endpoints independently of cluster ones', () => {
    const eps = map(
      endpoint('10.0.0.1', { nodeName: 'node-a', ready: false, terminating: true }),
      endpoint('10.0.0.5', { nodeName: 'node-b' }),
    );
    const c = categorizeEndpoints(eps, BOTH, 'node-a', '');
    expect(texts(c.cluster)).toEqual(['10.0.0.5:80']);
    expect(texts(c.local)).toEqual(['10.0.0.1:80']);
    // Both lists get endpoint chains.
    expect(texts(c.reachable)).toEqual(['10.0.0.1:80', '10.0.0.5:80']);
  });

  it('has no cluster list for a service that never uses Cluster policy', () => {
    const eps = map(endpoint('10.0.0.1', { nodeName: 'node-a' }), endpoint('10.0.0.2'));
    const c = categorizeEndpoints(eps, LOCAL_ONLY, 'node-a', '');
    expect(c.cluster).toBeNull();
    expect(texts(c.reachable)).toEqual(['10.0.0.1:80']);
    expect(c.hasAny).toBe(true);
  });

  it('filters by zone hints when every ready endpoint has one and one matches', () => {
    const hinted = (ip: string, zone: string) => endpoint(ip, { hints: { forZones: [zone] } });
    const eps = map(hinted('10.0.0.1', 'a'), hinted('10.0.0.2', 'b'), hinted('10.0.0.3', 'a'));
    expect(texts(categorizeEndpoints(eps, CLUSTER, 'node-a', 'a').cluster)).toEqual([
      '10.0.0.1:80',
      '10.0.0.3:80',
    ]);
    // No endpoint for zone c: hints are ignored.
    expect(categorizeEndpoints(eps, CLUSTER, 'node-a', 'c').cluster).toHaveLength(3);
    // One ready endpoint without a hint: hints are ignored.
    const partial = map(hinted('10.0.0.1', 'a'), endpoint('10.0.0.2'));
    expect(categorizeEndpoints(partial, CLUSTER, 'node-a', 'a').cluster).toHaveLength(2);
  });

  it('prefers node hints (PreferSameNode) over zone hints', () => {
    const h = (ip: string, node: string) =>
      endpoint(ip, { hints: { forZones: ['a'], forNodes: [node] } });
    const eps = map(h('10.0.0.1', 'node-b'), h('10.0.0.2', 'node-a'));
    expect(texts(categorizeEndpoints(eps, CLUSTER, 'node-a', 'a').cluster)).toEqual([
      '10.0.0.2:80',
    ]);
    expect(categorizeEndpoints(eps, CLUSTER, 'node-c', 'a').cluster).toHaveLength(2);
  });
});
