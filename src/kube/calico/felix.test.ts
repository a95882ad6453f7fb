/**
 * Felix's rendering, checked against what Felix itself writes: the `cali:` hashes of rules that
 * appear in every Calico node's iptables-save (public dumps), where each kind of policy lands,
 * and the rule shapes of felix/rules/policy.go.
 */
import { describe, expect, it } from 'vitest';
import { parseRuleset } from '../../engine/index.ts';
import { lengthLimitedId } from './hash.ts';
import { renderFelix, type FelixInput } from './felix.ts';
import { canonical, isSelectorError, matches, parseSelector, type Selector } from './selector.ts';
import type { CalicoRule, EntityRule, GlobalNetworkPolicyModel } from './types.ts';

const sel = (s: string) => parseSelector(s) as Selector;
const none: EntityRule = {
  nets: [],
  notNets: [],
  selector: null,
  notSelector: null,
  ports: [],
  notPorts: [],
};
const rule = (r: Partial<CalicoRule> = {}): CalicoRule => ({
  action: 'Allow',
  protocol: null,
  notProtocol: null,
  source: none,
  destination: none,
  ...r,
});
const policy = (p: Partial<GlobalNetworkPolicyModel>): GlobalNetworkPolicyModel => ({
  name: 'p',
  order: 10,
  selector: sel("node-role == 'core'"),
  types: ['Ingress'],
  ingress: [rule()],
  egress: [],
  preDNAT: false,
  applyOnForward: false,
  doNotTrack: false,
  ...p,
});

function input(policies: GlobalNetworkPolicyModel[], withHep = true): FelixInput {
  return {
    node: {
      name: 'core-1',
      ips: ['192.168.10.11'],
      interfaces: [{ name: 'eth0', ips: ['192.168.10.11'] }],
      workloads: [
        {
          iface: 'cali1234567890a',
          ip: '10.244.0.5',
          namespace: 'default',
          serviceAccount: 'default',
          labels: { app: 'web' },
        },
      ],
    },
    allWorkloads: [
      {
        iface: 'cali1234567890a',
        ip: '10.244.0.5',
        namespace: 'default',
        serviceAccount: 'default',
        labels: { app: 'web' },
      },
      {
        iface: 'calibbbbbbbbbbb',
        ip: '10.244.1.7',
        namespace: 'default',
        serviceAccount: 'default',
        labels: { app: 'db' },
      },
    ],
    ipPools: [{ cidr: '10.244.0.0/16', natOutgoing: true }],
    calico: {
      hostEndpoints: withHep
        ? [
            {
              name: 'core-1-eth0',
              node: 'core-1',
              interfaceName: 'eth0',
              expectedIPs: ['192.168.10.11'],
              labels: { 'node-role': 'core' },
              profiles: [],
            },
          ]
        : [],
      policies,
    },
  };
}

/** The lines of one table of the restore text. */
function table(text: string, name: string): string[] {
  const start = text.indexOf(`*${name}\n`);
  return text.slice(start, text.indexOf('COMMIT', start)).split('\n');
}

describe('Felix rendering', () => {
  const out = renderFelix(input([policy({ preDNAT: true, applyOnForward: true })]));

  it('writes the cali: hashes Felix writes (as seen in iptables-save of Calico nodes)', () => {
    // generictables.RuleHashes over the chain name and each rule as RenderAppend writes it.
    for (const h of [
      '-I PREROUTING -m comment --comment "cali:6gwbT8clXdHdC1b1" --jump cali-PREROUTING',
      '-I FORWARD -m comment --comment "cali:wUHhoiAYhphO9Mso" --jump cali-FORWARD',
      '-I INPUT -m comment --comment "cali:Cz_u1IQiXIMmKD4c" --jump cali-INPUT',
      '-I OUTPUT -m comment --comment "cali:tVnHkvAo15HuiPy0" --jump cali-OUTPUT',
      '-I POSTROUTING -m comment --comment "cali:O3lYWMrLQYEMJtB5" --jump cali-POSTROUTING',
      '-A cali-PREROUTING -m comment --comment "cali:6BJqBjBC7crtA-7-" -m conntrack --ctstate RELATED,ESTABLISHED --jump ACCEPT',
      '-A cali-PREROUTING -m comment --comment "cali:KX7AGNd6rMcDUai6" -m mark --mark 0x10000/0x10000 --jump ACCEPT',
      '-A cali-PREROUTING -m comment --comment "cali:wNH7KsA3ILKJBsY9" --jump cali-from-host-endpoint',
    ])
      expect(out.rules).toContain(h);
  });

  it('loads in the engine without a problem', () => {
    expect(parseRuleset(out.rules).diagnostics).toEqual([]);
  });

  it('puts a preDNAT policy in mangle only, after the failsafe ports', () => {
    const mangle = table(out.rules, 'mangle');
    const fh = mangle.filter((l) => l.startsWith('-A cali-fh-eth0'));
    expect(fh.findIndex((l) => l.includes('--jump cali-failsafe-in'))).toBeLessThan(
      fh.findIndex((l) => l.includes('--jump cali-pi-')),
    );
    expect(table(out.rules, 'filter').some((l) => l.includes('cali-pi-'))).toBe(false);
    expect(table(out.rules, 'raw').some((l) => l.includes('cali-pi-'))).toBe(false);
  });

  it('a doNotTrack policy goes to raw, with NOTRACK on accept', () => {
    const r = renderFelix(input([policy({ doNotTrack: true, applyOnForward: true })]));
    const raw = table(r.rules, 'raw');
    expect(raw.some((l) => l.startsWith('-A cali-fh-eth0') && l.includes('--jump NOTRACK'))).toBe(
      true,
    );
    expect(table(r.rules, 'mangle').some((l) => l.includes('cali-pi-'))).toBe(false);
  });

  it('an applyOnForward policy of the normal tier also guards forwarded traffic', () => {
    const r = renderFelix(input([policy({ applyOnForward: true })]));
    const filter = table(r.rules, 'filter');
    expect(filter.some((l) => l.startsWith('-A cali-fhfw-eth0') && l.includes('cali-pi-'))).toBe(
      true,
    );
    expect(filter.some((l) => l.includes('End of tier default. DROP'))).toBe(true);
  });

  it('with no host endpoint, no per-interface chain and no failsafe chain is programmed', () => {
    const r = renderFelix(input([policy({})], false));
    expect(r.rules).not.toContain(':cali-fh-eth0');
    expect(r.rules).not.toContain(':cali-failsafe-in');
    // Workloads still get their chains, allowed by the namespace profile.
    expect(r.rules).toContain('-A cali-pri-kns.default');
  });

  it('a host endpoint on * is every interface: the dispatch chains end in its chains', () => {
    const base = input([policy({ preDNAT: true, applyOnForward: true })]);
    const hep = base.calico.hostEndpoints[0];
    const r = renderFelix({
      ...base,
      calico: { ...base.calico, hostEndpoints: hep ? [{ ...hep, interfaceName: '*' }] : [] },
    });
    const mangle = table(r.rules, 'mangle');
    const to = mangle.filter((l) => l.startsWith('-A cali-to-host-endpoint '));
    expect(to.map((l) => l.replace(/.*"cali:[^"]+" /, ''))).toEqual([
      '-m comment --comment "Skip egress WHEP policy for traffic to local workload" --out-interface cali+ --jump RETURN',
      '--goto cali-th-any-interface-at-all',
    ]);
    expect(mangle).toContain(':cali-fh-any-interface-at-all - -');
    // In filter, applyOnForward dispatch: no skip rule, and the forward chains are hashed names.
    const filter = table(r.rules, 'filter');
    expect(filter.filter((l) => l.startsWith('-A cali-to-host-endpoint ')).length).toBe(1);
    expect(filter.some((l) => /--goto cali-thfw-_[\w-]{17}$/.test(l))).toBe(true);
  });

  it('several source nets are ORed through the scratch mark bits (matchBlockBuilder)', () => {
    const r = renderFelix(
      input([
        policy({
          preDNAT: true,
          applyOnForward: true,
          ingress: [rule({ source: { ...none, nets: ['10.244.0.0/16', '10.96.0.0/12'] } })],
        }),
      ]),
    );
    const pi = table(r.rules, 'mangle').filter((l) => l.startsWith('-A cali-pi-'));
    expect(pi.map((l) => l.replace(/.*"cali:[^"]+" /, ''))).toEqual([
      '-m comment --comment "GlobalNetworkPolicy p ingress" --jump MARK --set-mark 0x0/0x180000',
      '--source 10.244.0.0/16 --jump MARK --set-mark 0x80000/0x80000',
      '--source 10.96.0.0/12 --jump MARK --set-mark 0x80000/0x80000',
      '-m mark --mark 0x80000/0x80000 --jump MARK --set-mark 0x10000/0x10000',
    ]);
  });

  it('Deny sets the drop mark then DROPs; Log logs and goes on; ranges use a colon', () => {
    const tcp = { name: 'TCP' };
    const ports = { ...none, ports: [{ first: 30000, last: 32767 }] };
    const r = renderFelix(
      input([
        policy({
          preDNAT: true,
          applyOnForward: true,
          ingress: [
            rule({ action: 'Log', protocol: tcp, destination: ports }),
            rule({ action: 'Deny', protocol: tcp, destination: ports }),
          ],
        }),
      ]),
    );
    const pi = table(r.rules, 'mangle').filter((l) => l.startsWith('-A cali-pi-'));
    expect(pi.map((l) => l.replace(/.*"cali:[^"]+" /, ''))).toEqual([
      '-m comment --comment "GlobalNetworkPolicy p ingress" -p tcp -m multiport --destination-ports 30000:32767 --jump LOG --log-prefix "calico-packet: " --log-level 5',
      '-p tcp -m multiport --destination-ports 30000:32767 --jump MARK --set-mark 0x40000/0x40000',
      '-m mark --mark 0x40000/0x40000 --jump DROP',
    ]);
  });

  it('a rule selector becomes an IP set of the matching endpoints', () => {
    const r = renderFelix(
      input([
        policy({
          preDNAT: true,
          applyOnForward: true,
          ingress: [rule({ source: { ...none, selector: sel("app == 'db'") } })],
        }),
      ]),
    );
    const set = r.ipsets.find((s) => s.name.startsWith('cali40s:'));
    expect(set?.entries).toEqual(['10.244.1.7/32']);
    expect(set?.name.length).toBeLessThanOrEqual(31);
    expect(r.rules).toContain(`-m set --match-set ${set?.name} src`);
  });

  it('names policy chains within 28 characters (hash.GetLengthLimitedID)', () => {
    expect(lengthLimitedId('cali-pri-', 'kns.default')).toBe('cali-pri-kns.default');
    const long = lengthLimitedId('cali-pi-', 'gnp/nodeport-deny-on-core');
    expect(long).toMatch(/^cali-pi-_[A-Za-z0-9_-]{19}$/);
  });
});

describe('Calico selectors', () => {
  it('print as the parser prints them', () => {
    expect(canonical(sel("host-endpoint == 'true' && node-role == 'core'"))).toBe(
      '(host-endpoint == "true" && node-role == "core")',
    );
    expect(canonical(sel("a in {'y', 'x'} || !has(b)"))).toBe('(a in {"x", "y"} || !has(b))');
    expect(canonical(sel(''))).toBe('all()');
  });

  it('evaluate like Calico (a missing label is != anything)', () => {
    expect(matches(sel("role != 'edge'"), {})).toBe(true);
    expect(matches(sel("role == 'edge'"), {})).toBe(false);
    expect(matches(sel('has(x) && x not in {"a"}'), { x: 'b' })).toBe(true);
  });

  it('say where a selector is wrong', () => {
    const e = parseSelector('host-endpoint true node-role core');
    expect(isSelectorError(e) && e.message).toContain("after 'host-endpoint'");
  });
});
