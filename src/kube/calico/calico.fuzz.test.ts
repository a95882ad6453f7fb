/**
 * Property tests: Calico selectors and resources, random or mutated, never make the reader or
 * Felix's renderer throw; a selector prints back to itself; what Felix renders always loads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRuleset } from '../../engine/index.ts';
import { readManifests, type ClusterSettings } from '../manifests/index.ts';
import { renderFelix } from './felix.ts';
import { canonical, isSelectorError, matches, parseSelector, type Selector } from './selector.ts';

const label = fc.constantFrom('app', 'node-role', 'host-endpoint', 'x.y/z');
const value = fc.constantFrom('core', 'edge', 'true', 'a b', "it's");
const selector: fc.Arbitrary<Selector> = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constant<Selector>({ kind: 'all' }),
    label.map((l): Selector => ({ kind: 'has', label: l })),
    fc
      .tuple(label, fc.constantFrom('==', '!=', 'contains', 'starts with', 'ends with'), value)
      .map(([l, op, v]): Selector => ({ kind: 'cmp', label: l, op, value: v })),
    fc
      .tuple(label, fc.constantFrom('in', 'not in'), fc.uniqueArray(value, { maxLength: 3 }))
      .map(([l, k, vs]): Selector => ({ kind: k, label: l, values: [...vs].sort() })),
  ),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    tie('node').map((o): Selector => ({ kind: 'not', operand: o as Selector })),
    fc
      .tuple(fc.constantFrom('and', 'or'), fc.array(tie('node'), { minLength: 2, maxLength: 3 }))
      .map(([k, os]): Selector => ({ kind: k, operands: os as Selector[] })),
  ),
})).node as fc.Arbitrary<Selector>;

describe('Calico selectors (property)', () => {
  it('any text parses or fails at a position inside it, never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        const r = parseSelector(s);
        if (isSelectorError(r)) expect(r.at).toBeLessThanOrEqual(s.length);
      }),
    );
  });

  it('print and parse round-trip, and evaluate the same', () => {
    const labels = fc.dictionary(label, value, { maxKeys: 3 });
    fc.assert(
      fc.property(selector, labels, (sel, ls) => {
        const text = canonical(sel);
        const back = parseSelector(text);
        expect(isSelectorError(back)).toBe(false);
        expect(canonical(back as Selector)).toBe(text);
        expect(matches(back as Selector, ls)).toBe(matches(sel, ls));
      }),
    );
  });
});

const CLUSTER: ClusterSettings = {
  nodes: [
    {
      name: 'core-1',
      ip: '192.168.10.11',
      zone: null,
      labels: {},
      taints: [],
      podCIDR: '10.244.0.0/24',
      cpu: 4,
    },
  ],
  serviceCIDR: '10.96.0.0/12',
  loadBalancerPool: [],
};

const DOCS = `apiVersion: projectcalico.org/v3
kind: HostEndpoint
metadata:
  name: core-1-eth0
  labels: { node-role: core }
spec:
  node: core-1
  interfaceName: eth0
---
apiVersion: projectcalico.org/v3
kind: GlobalNetworkPolicy
metadata:
  name: deny
spec:
  order: 10
  preDNAT: true
  applyOnForward: true
  selector: node-role == 'core'
  ingress:
    - action: Allow
      source:
        nets: [10.244.0.0/16, 192.168.10.0/24]
        selector: has(app)
    - action: Deny
      protocol: TCP
      destination:
        ports: ["30000:32767", 22, 80, 443, 8080, 8443, 9090, 9100, 9200, 9300, 10250, 10255, 10256, 10257, 10259]
`.split('\n');

describe('Calico resources (property)', () => {
  it('mutated documents never throw, are placed inside the text, and render to loadable rules', () => {
    const junk = fc.constantFrom(
      '',
      '  ports: [30000-32767]',
      '- action: Maybe',
      'protocol: 999',
      '🙂',
      '  selector: ((',
    );
    fc.assert(
      fc.property(fc.nat(DOCS.length - 1), junk, fc.boolean(), (at, line, replace) => {
        const lines = [...DOCS];
        lines.splice(at, replace ? 1 : 0, line);
        const text = lines.join('\n');
        const m = readManifests(text, CLUSTER);
        for (const d of m.diagnostics) expect(d.line).toBeLessThanOrEqual(lines.length + 1);
        const out = renderFelix({
          node: {
            name: 'core-1',
            ips: ['192.168.10.11'],
            interfaces: [{ name: 'eth0', ips: ['192.168.10.11'] }],
            workloads: [],
          },
          calico: m.calico ?? { hostEndpoints: [], policies: [] },
          allWorkloads: [],
          ipPools: [{ cidr: '10.244.0.0/16', natOutgoing: true }],
        });
        expect(parseRuleset(out.rules).diagnostics.filter((d) => d.severity === 'error')).toEqual(
          [],
        );
      }),
      { numRuns: 150 },
    );
  });
});
