/**
 * The CLI on an IPVS-mode scenario: `rules` shows the node's ipsets, kube-ipvs0 addresses,
 * `ipvsadm -Ln` and `ipvsadm -S -n` beside its iptables-save (still loadable by
 * iptables-restore), and `run` and `trace` mark IPVS results as modelled, not kernel-checked.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRuleset } from '../engine/index.ts';
import { runCli } from './cli.ts';

const SCENARIO = join(import.meta.dirname, '../../scenarios/ipvs-local-lb-from-inside.yaml');

function cli(...argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe('hookpath on an IPVS-mode node', () => {
  it('rules: iptables-save, then kube-ipvs0, the ipsets and ipvsadm -Ln as comments', () => {
    const r = cli('rules', SCENARIO, '--node', 'xs4774', '--variant', 'ipvs');
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toContain('not checked on a kernel');
    expect(r.out).toContain('#   inet 10.34.251.210/32 scope global kube-ipvs0');
    expect(r.out).toContain('#   add KUBE-LOAD-BALANCER-LOCAL 10.34.251.210,tcp:80');
    expect(r.out).toMatch(/#\s+TCP {2}10\.34\.251\.210:80 rr\n#\s+-> 10\.244\.1\.10:80\s+Masq\s+1/);
    // ipvsadm -S -n too (what `ipvsadm -R` restores; the "Your host" view reads both).
    expect(r.out).toContain('# ipvsadm -S -n\n#   -A -t 10.34.251.74:30080 -s rr\n');
    expect(r.out).toContain('#   -a -t 10.34.251.210:80 -r 10.244.1.10:80 -m -w 1\n');
    // Still one iptables-restore input: the views are comments.
    const parsed = parseRuleset(r.out, { family: 4 });
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(parsed.ruleset.tables.get('filter')?.chains.has('KUBE-IPVS-FILTER')).toBe(true);
  });

  it('rules: an iptables-mode node prints its iptables-save only', () => {
    const r = cli('rules', SCENARIO, '--node', 'xs4774', '--variant', 'iptables');
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toContain('ipvsadm');
    expect(r.out).toContain('KUBE-EXT-');
  });

  it('run: the IPVS variants carry the mark, the iptables one does not', () => {
    const r = cli('run', SCENARIO);
    expect(r.code, r.out).toBe(0);
    const sections = r.out.split(`\n${SCENARIO}`).slice(1);
    const marked = (id: string) =>
      sections.find((s) => s.includes(`[${id}]`))?.includes('not checked on a kernel');
    expect(marked('ipvs')).toBe(true);
    expect(marked('ipvs-no-strict-arp')).toBe(true);
    expect(marked('iptables')).toBe(false);
    expect(r.out).toContain('KEP-5495');
  });

  it('trace: the IPVS decision, marked, and the mark under the outcome', () => {
    const r = cli(
      'trace',
      SCENARIO,
      '--variant',
      'ipvs',
      '--from',
      'client/office-pc',
      '--to',
      'lb/nginx:80',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /ipvs INPUT schedule TCP 10\.34\.251\.210:80 rr -> 10\.244\.1\.10:80 {2}\[modelled, not kernel-checked\]/,
    );
    expect(r.out.split('\n').slice(0, 4).join('\n')).toContain('IPVS mode on xs4773');
  });

  it('trace --proto icmp pings the target', () => {
    const r = cli(
      'trace',
      SCENARIO,
      '--variant',
      'ipvs',
      '--from',
      'pod/toolbox',
      '--to',
      'svc/nginx:80',
      '--proto',
      'icmp',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('filter:KUBE-IPVS-FILTER:rule:6:DROP');
  });
});
