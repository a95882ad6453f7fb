/**
 * The IPVS generator against kube-proxy's own IPVS proxier tests (fixtures/, transcribed from
 * pkg/proxy/ipvs/proxier_test.go at danwinship/kubernetes 6c763fd5). For each case: the
 * virtual and real servers, ipset entries and iptables chains the test asserts.
 */
import { describe, expect, it } from 'vitest';
import { parseRuleset } from '../../engine/index.ts';
import { setupToProxierInput, type Setup } from '../../conformance/setup.ts';
import type { ProxierInput } from '../model.ts';
import corpus from './fixtures/proxier-test-cases.json' with { type: 'json' };
import { generateIpvsRules, isValidForSet, type IpvsRules } from './index.ts';

interface VsExpect {
  readonly address: string;
  readonly port: number;
  readonly protocol: string;
  readonly scheduler?: string;
  readonly realServers?: readonly string[];
  readonly realServersWithin?: readonly string[];
}

interface Case {
  readonly id: string;
  readonly ipFamily: 'IPv4' | 'IPv6';
  readonly nodeIPs: readonly string[];
  readonly nodePortAddresses: readonly string[];
  readonly randomFully?: boolean;
  readonly setup: Setup & {
    readonly services: readonly (Setup['services'][number] & {
      readonly loadBalancerIngressObjects?: readonly { ip: string; ipMode?: 'VIP' | 'Proxy' }[];
    })[];
  };
  readonly expect: {
    readonly ipvs?: readonly VsExpect[];
    readonly vsCount?: number;
    readonly vs?: readonly VsExpect[];
    readonly realServersOf?: readonly VsExpect[];
    readonly ipsets?: Readonly<Record<string, readonly string[]>>;
    readonly loopBack?: readonly string[];
    readonly iptables?: Readonly<Record<string, readonly (readonly [string, string])[]>>;
    readonly timeouts?: number;
    readonly natChains?: string;
    readonly filterChains?: string;
    readonly firstServicesRule?: { readonly jump: string; readonly source: string };
    readonly masqueradeRandomFully?: boolean;
    readonly dummyAddresses?: readonly string[];
  };
}

const cases = corpus.cases as unknown as readonly Case[];

/** The fake proxier of the tests: no local detector, no --random-fully, the case's addresses. */
function inputOf(c: Case): ProxierInput {
  const base = setupToProxierInput(
    {
      ...c.setup,
      proxierOverrides: { localDetector: 'none', nodePortAddresses: c.nodePortAddresses },
    },
    c.nodeIPs,
    c.ipFamily,
  );
  return {
    ...base,
    services: base.services.map((s, i) => {
      const objs = c.setup.services[i]?.loadBalancerIngressObjects;
      return objs ? { ...s, loadBalancerIngress: objs } : s;
    }),
    config: { ...base.config, randomFully: c.randomFully ?? false },
  };
}

const vsKey = (v: { address: string; port: number; protocol?: string; proto?: string }) =>
  `${(v.protocol ?? v.proto ?? '').toUpperCase()} ${v.address}:${v.port}`;

function vsState(r: IpvsRules) {
  return r.virtualServers
    .map((v) => ({
      key: vsKey(v),
      scheduler: v.scheduler,
      realServers: v.realServers.map((e) => e.text).sort(),
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** checkIptables: per chain (nat rules first, then filter), `-j` target and `--match-set` name. */
function chainRules(r: IpvsRules, chain: string): [string, string][] {
  return r.restoreInput
    .split('\n')
    .filter((l) => l.startsWith(`-A ${chain} `))
    .map((l) => [/ -j (\S+)/.exec(l)?.[1] ?? '', / --match-set (\S+)/.exec(l)?.[1] ?? '']);
}

/** The fake creates IPv6 sets with IPv4 names: compare by base name. */
function setEntries(r: IpvsRules, base: string): string[] {
  return [...(r.sets.find((s) => s.base === base)?.entries ?? [])].sort();
}

describe("kube-proxy's IPVS proxier tests (pkg/proxy/ipvs/proxier_test.go)", () => {
  it('has the cases it expects', () => {
    expect(cases.length).toBe(48);
  });

  for (const c of cases) {
    it(c.id, () => {
      const r = generateIpvsRules(inputOf(c));
      const e = c.expect;
      if (e.ipvs) {
        expect(vsState(r)).toEqual(
          e.ipvs
            .map((v) => ({
              key: vsKey(v),
              scheduler: v.scheduler,
              realServers: [...(v.realServers ?? [])].sort(),
            }))
            .sort((a, b) => (a.key < b.key ? -1 : 1)),
        );
      }
      if (e.vsCount !== undefined) expect(r.virtualServers.length).toBe(e.vsCount);
      for (const want of e.vs ?? []) {
        const got = r.virtualServers.find((v) => vsKey(v) === vsKey(want));
        if (!got) continue; // checkIPVS compares only a virtual server that exists
        const servers = got.realServers.map((x) => x.text);
        if (want.realServers) expect(servers).toEqual(want.realServers);
        if (want.realServersWithin)
          for (const s of servers) expect(want.realServersWithin).toContain(s);
      }
      for (const want of e.realServersOf ?? []) {
        const got = r.virtualServers.find((v) => vsKey(v) === vsKey(want));
        expect(got, vsKey(want)).toBeDefined();
        expect(got?.realServers.map((x) => x.text)).toEqual(want.realServers);
      }
      for (const [set, entries] of Object.entries(e.ipsets ?? {}))
        expect(setEntries(r, set), set).toEqual([...entries].sort());
      if (e.loopBack) expect(setEntries(r, 'KUBE-LOOP-BACK')).toEqual([...e.loopBack].sort());
      for (const [chain, rules] of Object.entries(e.iptables ?? {}))
        expect(chainRules(r, chain), chain).toEqual(rules);
      if (e.timeouts !== undefined) {
        expect(r.virtualServers.length).toBeGreaterThan(0);
        for (const v of r.virtualServers) expect(v.persistent, vsKey(v)).toBe(e.timeouts);
      }
      if (e.natChains) expect(sectionChains(r.restoreInput, 'nat')).toBe(e.natChains);
      if (e.filterChains) expect(sectionChains(r.restoreInput, 'filter')).toBe(e.filterChains);
      if (e.firstServicesRule) {
        const first = r.restoreInput.split('\n').find((l) => l.startsWith('-A KUBE-SERVICES '));
        expect(first).toBe(
          `-A KUBE-SERVICES -s ${e.firstServicesRule.source} -j ${e.firstServicesRule.jump}`,
        );
      }
      if (e.masqueradeRandomFully !== undefined) {
        const masq = chainRules(r, 'KUBE-POSTROUTING').filter(([j]) => j === 'MASQUERADE');
        expect(masq.length).toBeGreaterThan(0);
        const line = r.restoreInput.split('\n').find((l) => l.includes('requiring SNAT'));
        expect(line?.endsWith('--random-fully')).toBe(e.masqueradeRandomFully);
      }
      if (e.dummyAddresses) expect(r.dummyAddresses).toEqual(e.dummyAddresses);
      // Whatever the case, the dump must load into the engine as kube-proxy's rules would.
      expect(
        parseRuleset(r.dump, { family: r.family }).diagnostics.filter(
          (d) => d.severity === 'error',
        ),
      ).toEqual([]);
    });
  }

  it('TestIpIsValidForSet', () => {
    for (const [fam, ip, ok] of corpus.isValidForSet as [string, string, boolean][])
      expect(isValidForSet(ip, fam === 'IPv6' ? 6 : 4), `${fam} ${ip}`).toBe(ok);
  });
});

/** The chain declarations of one table in restore input. */
function sectionChains(text: string, table: 'nat' | 'filter'): string {
  const lines = text.split('\n');
  const start = lines.indexOf(`*${table}`);
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.startsWith('*')) break;
    if (l.startsWith(':')) out.push(l);
  }
  return out.map((l) => `${l}\n`).join('');
}
