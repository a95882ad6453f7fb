import { describe, expect, it } from 'vitest';
import { buildTimeline, firstReplyStep, hostPasses } from './timeline.ts';
import { buildScene, stripMarks } from './scene.ts';
import { layoutDiagram } from './layout.ts';
import { motionPath, pipelineWalk } from './motion.ts';
import { labelOffset, pointAlong } from './geometry.ts';
import { verdictOf } from './verdict.ts';
import { insightOf } from './insight.ts';
import { digestRules, visibleRules, type ChainView } from './rules-view.ts';
import { dropResult, podResult, sshdResult } from '../testing/lab-fixtures.ts';

const run0 = (r: ReturnType<typeof podResult>) => r.runs[0] as (typeof r.runs)[number];

describe('timeline', () => {
  it('places every event of the DNAT path at a pipeline slot, with the rewrite', () => {
    const steps = buildTimeline(run0(podResult()));
    const dnat = steps.find((s) => s.event.type === 'rule' && s.event.target === 'DNAT');
    expect(dnat?.slot).toEqual({ kind: 'hook', hook: 'PREROUTING', row: 'nat' });
    expect(dnat?.changed).toEqual(['dst', 'dport']);
    const route = steps[(dnat?.index ?? 0) + 1];
    expect(route?.slot).toEqual({ kind: 'route-in' });
    const masq = steps.find((s) => s.event.type === 'rule' && s.event.target === 'MASQUERADE');
    expect(masq?.changed).toContain('src');
    expect(steps[firstReplyStep(steps)]?.direction).toBe('reply');
  });

  it('records the packet as it entered and left each host', () => {
    const passes = hostPasses(buildTimeline(run0(podResult())));
    const cp = passes.find((p) => p.host === 'cp-1' && p.packetId === 1);
    expect(cp?.inbound?.dst).toBe('192.168.50.100');
    expect(cp?.outbound?.dst).toBe('10.244.1.5');
    expect(cp?.outbound?.src).toBe('192.168.50.38');
  });

  it('marks a DROP as the end', () => {
    const steps = buildTimeline(run0(dropResult()));
    expect(steps.at(-1)?.end).toBe('drop');
  });
});

describe('layout and motion', () => {
  const r = podResult();
  const layout = layoutDiagram({ cluster: r.cluster!, runs: r.runs, rules: r.rules });

  it('draws the nodes on the path with their pipeline and the others compact', () => {
    const byName = Object.fromEntries(layout.hosts.map((h) => [h.name, h]));
    expect(byName['cp-1']?.pipeline).toBe(true);
    expect(byName['worker-1']?.pipeline).toBe(true);
    expect(byName['client']?.pipeline).toBe(false);
    expect(byName['cp-1']?.hooks.map((h) => h.hook)).toEqual([
      'PREROUTING',
      'FORWARD',
      'POSTROUTING',
      'INPUT',
      'OUTPUT',
    ]);
    // The pod hangs under its node, on its veth.
    expect(byName['nettest']?.y).toBeGreaterThan(
      (byName['worker-1']?.y ?? 0) + (byName['worker-1']?.h ?? 0),
    );
    expect(layout.wires.find((w) => w.segment === 'lan')?.kind).toBe('bus');
    expect(layout.wires.find((w) => w.segment === 'veth-nettest')?.kind).toBe('p2p');
  });

  it('draws a row per table and kernel step, the security table only where the ruleset has one', () => {
    const rows = (l: typeof layout, hook: string) =>
      l.hosts
        .find((h) => h.name === 'cp-1')
        ?.hooks.find((k) => k.hook === hook)
        ?.rows.map((x) => x.row);
    expect(rows(layout, 'PREROUTING')).toEqual(['raw', 'conntrack', 'mangle', 'nat']);
    expect(rows(layout, 'INPUT')).toEqual(['mangle', 'filter', 'nat', 'confirm']);
    expect(rows(layout, 'OUTPUT')).toEqual([
      'raw',
      'conntrack',
      'mangle',
      'nat',
      'reroute',
      'filter',
    ]);
    expect(rows(layout, 'POSTROUTING')).toEqual(['mangle', 'nat', 'confirm']);
    const withSecurity = layoutDiagram({
      cluster: r.cluster!,
      runs: r.runs,
      rules: {
        ...r.rules,
        'cp-1': [
          ...(r.rules['cp-1'] ?? []),
          ...digestRules('*security\n:INPUT ACCEPT [0:0]\nCOMMIT\n', new Set()),
        ],
      },
    });
    expect(rows(withSecurity, 'INPUT')).toEqual(['mangle', 'filter', 'security', 'nat', 'confirm']);
    expect(rows(withSecurity, 'FORWARD')).toEqual(['mangle', 'filter', 'security']);
  });

  it('no two hosts overlap', () => {
    const hs = layout.hosts;
    for (const a of hs)
      for (const b of hs) {
        if (a === b) continue;
        const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
        expect(apart, `${a.name} / ${b.name}`).toBe(true);
      }
  });

  it('walks the pipeline arrows: PREROUTING to POSTROUTING goes through routing and FORWARD', () => {
    expect(pipelineWalk('PREROUTING', 'POSTROUTING')).toEqual([
      'PREROUTING',
      'route-in',
      'FORWARD',
      'POSTROUTING',
    ]);
    expect(pipelineWalk('local', 'out')).toEqual([
      'local',
      'route-out',
      'OUTPUT',
      'POSTROUTING',
      'out',
    ]);
    expect(pipelineWalk('INPUT', 'PREROUTING')).toBeNull();
  });

  it('moves between hosts along the bus', () => {
    const steps = buildTimeline(run0(podResult()));
    const i = steps.findIndex((s) => s.host === 'cp-1' && s.event.type === 'receive');
    const path = motionPath(layout, steps[i - 1] ?? null, steps[i] as (typeof steps)[number]);
    const bus = layout.wires.find((w) => w.segment === 'lan')?.busY;
    expect(path.some((p) => p.y === bus)).toBe(true);
  });

  it('interpolates along a polyline and keeps the label off the boxes', () => {
    expect(
      pointAlong(
        [
          { x: 0, y: 0 },
          { x: 10, y: 0 },
          { x: 10, y: 10 },
        ],
        0.75,
      ),
    ).toEqual({ x: 10, y: 5 });
    const off = labelOffset({ x: 100, y: 100 }, 50, 20, [{ x: 105, y: 60, w: 80, h: 40 }]);
    expect(off.x).toBeLessThan(0);
  });

  it('builds a scene with finite coordinates for every step', () => {
    const steps = buildTimeline(run0(r));
    const scene = buildScene(r, steps);
    for (const s of scene?.steps ?? [])
      for (const p of s.path) expect(Number.isFinite(p.x) && Number.isFinite(p.y)).toBe(true);
    const marks = stripMarks(steps, steps.length - 1);
    expect(
      marks.find((m) => m.host === 'cp-1' && m.hook === 'PREROUTING' && m.row === 'nat')?.badge,
    ).toBe('DNAT');
  });
});

describe('verdict and insight', () => {
  it('names the pod, its node, and the MASQUERADE behind the source it saw', () => {
    const r = podResult();
    expect(verdictOf(run0(r), r.cluster)).toEqual({
      key: 'verdict.answered-pod-nat',
      params: {
        pod: 'nettest',
        node: 'worker-1',
        src: '192.168.50.38',
        nat: 'MASQUERADE',
        natHost: 'cp-1',
      },
    });
  });

  it('says sshd answered when nothing rewrote the VIP', () => {
    const r = sshdResult();
    expect(verdictOf(run0(r), r.cluster).key).toBe('verdict.answered-host');
  });

  it('explains that after DNAT the routing decision forwards and sshd never sees it', () => {
    const r = podResult();
    const steps = buildTimeline(run0(r));
    const i = steps.findIndex((s) => s.event.type === 'route' && s.event.decision === 'forward');
    expect(insightOf(steps, i, r.cluster)).toEqual({
      key: 'insight.dnat-forward-socket',
      params: { dst: '10.244.1.5:80', process: 'sshd' },
    });
  });
});

describe('rules view', () => {
  it('groups an iptables-save text by table and chain, keeping line numbers', () => {
    const t = digestRules(
      '*nat\n:PREROUTING ACCEPT [0:0]\n:KUBE-SERVICES - [0:0]\n-A PREROUTING -j KUBE-SERVICES\nCOMMIT\n',
      new Set(),
    );
    expect(t[0]?.name).toBe('nat');
    expect(
      t[0]?.chains.map((c) => [c.name, c.policy, c.count, c.rules.map((x) => x.line)]),
    ).toEqual([
      ['PREROUTING', 'ACCEPT', 1, [4]],
      ['KUBE-SERVICES', '-', 0, []],
    ]);
  });

  /** A chain of `n` rules, one per line from line 3. */
  const longChain = (n: number) =>
    `*nat\n:BIG - [0:0]\n${Array.from({ length: n }, (_, i) => `-A BIG -j R${i}`).join('\n')}\nCOMMIT\n`;
  const rowsOf = (c: ChainView, keep: Set<number>) =>
    visibleRules(c, keep).map((r) => ('gap' in r ? `gap ${r.gap}` : `${r.index}`));

  it('keeps of a long chain only what a step can show: the first rules and those near any match', () => {
    // Rule 500 is on line 503; any run matched it.
    const [table] = digestRules(longChain(1000), new Set([503]));
    const chain = table?.chains[0] as ChainView;
    expect(chain.count).toBe(1000);
    expect(chain.rules.length).toBe(20 + 51);
    // Before the packet reached it: the first 20 rules, then one gap for the rest.
    expect(rowsOf(chain, new Set())).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `${i}`),
      'gap 980',
    ]);
    // Once it matched: the rules around it too, gaps counted from the whole chain.
    const rows = rowsOf(chain, new Set([503]));
    expect(rows.slice(19, 23)).toEqual(['19', 'gap 455', '475', '476']);
    expect(rows.slice(-2)).toEqual(['525', 'gap 474']);
  });

  it('keeps the chains the packet can go through and the first others, counting the rest', () => {
    const text = `*nat\n${Array.from({ length: 300 }, (_, i) => `:C${i} - [0:0]`).join('\n')}\n${Array.from({ length: 300 }, (_, i) => `-A C${i} -j RETURN`).join('\n')}\nCOMMIT\n`;
    // Chain C250's rule is on line 2 + 300 + 250.
    const [table] = digestRules(text, new Set([552]));
    expect(table?.chains.length).toBe(121);
    expect(table?.hidden).toBe(179);
    expect(table?.chains.some((c) => c.name === 'C250')).toBe(true);
  });
});
