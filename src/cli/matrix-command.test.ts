/**
 * `hookpath matrix`: the table a reader gets, the JSON a script gets, the exit codes (1 when a
 * stated expectation fails, 2 on bad input with the place named), in-process and through the bin.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MINI_SCENARIO, miniWith } from '../cluster/testing/mini-scenario.ts';
import { runCli } from './cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookpath-matrix-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function cli(argv: string[], colour = false): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runCli(argv, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    colour,
  });
  return { code, out, err };
}

const NODEPORT = join(import.meta.dirname, '../../scenarios/nodeport-close-on-core-nodes.yaml');
const MINI = file('mini.yaml', MINI_SCENARIO);
const WRONG = file(
  'wrong.yaml',
  miniWith(
    'to: nodeport/web@cp-1\n    expect: { outcome: answered }',
    'to: nodeport/web@cp-1\n    expect: { outcome: timeout }',
  ),
);

describe('hookpath matrix', () => {
  it('prints the grid, the numbered destinations and each cell, within 100 columns', () => {
    const r = cli(['matrix', NODEPORT, '--variant', 'a-etp-local']);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(
      /\[a-etp-local, iptables mode\]: 7 senders × 7 destinations, 45 cells$/,
    );
    expect(lines.find((l) => l.startsWith('client/external '))).toBe(
      'client/external  refused    timeout✓   timeout    answered✓  ·          refused    answered✓',
    );
    expect(r.out).toContain(
      "[5]  localhost-nodeport/web             127.0.0.1:30080 on the sender's own node (nodes only)",
    );
    expect(r.out).toContain(
      '  [2] nodeport/web@core-1: timeout (rule filter:KUBE-EXTERNAL-SERVICES:1) · ✓ expected: timeout',
    );
    expect(r.out).toContain('9 of 9 stated expectations hold');
    // Every line but the first, which names the file as given.
    for (const l of lines.slice(1)) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(r.out).not.toContain('\u001b[');
  });

  it('colour only when stdout is a terminal', () => {
    const r = cli(['matrix', MINI], true);
    expect(r.out).toContain('\u001b[32manswered');
  });

  it('in Chinese', () => {
    const r = cli(['matrix', NODEPORT, '--variant', 'b-nodeport-addresses', '--lang', 'zh']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('7 个发送方 × 7 个目标，共 45 格');
    expect(r.out.split('\n').find((l) => l.startsWith('client/external '))).toContain('拒绝✓');
  });

  it('exit 1 and the difference when a stated expectation fails', () => {
    const r = cli(['matrix', WRONG]);
    expect(r.code).toBe(1);
    expect(r.out.replace(/\n\s+(?!!)/g, ' ')).toMatch(
      /\[\d+\] nodeport\/web@cp-1: answered by pod\/web \(2 pods\).* ✗ expected: timeout/,
    );
    expect(r.out).toMatch(/ {6}! outcome: expected timeout, got answered by pod\/web-/);
    expect(r.out).toContain('1 of 2 stated expectations hold; 1 do not');
  });

  it('--json: the cells with from, to, outcome, responder, source seen, expected', () => {
    const r = cli(['matrix', NODEPORT, '--variant', 'a-etp-local', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      variant: string;
      cells: {
        from: string;
        to: string;
        outcome: string;
        responder: string | null;
        srcSeen: string | null;
        expected: string | null;
        matches: boolean | null;
      }[];
    };
    expect(j.variant).toBe('a-etp-local');
    expect(j.cells).toHaveLength(45);
    const edge = j.cells.find(
      (c) => c.from === 'client/external' && c.to === 'nodeport/web@edge-1',
    );
    expect(edge).toMatchObject({
      outcome: 'answered',
      srcSeen: '192.168.10.50',
      expected: 'answered by pod/web, src seen client/external',
      matches: true,
    });
    expect(edge?.responder).toMatch(/^pod\/web-\S+, pod\/web-\S+$/);
    const core = j.cells.find(
      (c) => c.from === 'client/external' && c.to === 'nodeport/web@core-1',
    );
    expect(core).toMatchObject({ outcome: 'timeout', responder: null, srcSeen: null });
  });

  it('bad input: exit 2, the place named', () => {
    const v = cli(['matrix', NODEPORT, '--variant', 'nope']);
    expect(v.code).toBe(2);
    expect(v.err).toContain("no variant 'nope'; variants are open, a-etp-local");
    const lang = cli(['matrix', MINI, '--lang', 'fr']);
    expect([lang.code, lang.err]).toEqual([2, "hookpath: --lang 'fr': use en or zh\n"]);
    expect(cli(['matrix']).err).toContain('give a scenario file');
    const broken = file(
      'broken.yaml',
      miniWith('port: 80, targetPort: 8080', 'port: 99999, targetPort: 8080'),
    );
    const b = cli(['matrix', broken]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/broken\.yaml:\d+:\d+: error: .*ports/);
    expect(b.err).not.toMatch(/\n\s+at /);
  });

  it('--mode: the matrix in that kube-proxy mode, said in the header and the JSON; a bad one exits 2', () => {
    const r = cli(['matrix', NODEPORT, '--variant', 'a-etp-local', '--mode', 'nftables', '--json']);
    expect(r.code, r.err).toBe(0);
    const json = JSON.parse(r.out) as {
      mode: string;
      cells: { from: string; branches: { detail: string }[] }[];
    };
    expect(json.mode).toBe('nftables');
    const text = cli(['matrix', NODEPORT, '--variant', 'a-etp-local', '--mode', 'nftables']);
    expect(text.out.split('\n')[0]).toMatch(/\[a-etp-local, nftables mode\]: 7 senders/);
    // iptables mode is the scenario's first: the default.
    expect((JSON.parse(cli(['matrix', NODEPORT, '--json']).out) as { mode: string }).mode).toBe(
      'iptables',
    );
    const bad = cli(['matrix', NODEPORT, '--mode', 'ebpf']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--mode 'ebpf': use iptables, nftables, ipvs");
    const notHere = cli(['matrix', NODEPORT, '--mode', 'ipvs']);
    expect(notHere.code).toBe(2);
    expect(notHere.err).toContain("--mode 'ipvs': the scenario runs in iptables, nftables");
  });

  it('through the real binary', () => {
    const bin = join(import.meta.dirname, 'bin.mjs');
    const ok = spawnSync(process.execPath, [bin, 'matrix', MINI, '--json'], { encoding: 'utf8' });
    expect(ok.status, ok.stderr).toBe(0);
    expect((JSON.parse(ok.stdout) as { cells: unknown[] }).cells.length).toBeGreaterThan(0);
    const bad = spawnSync(process.execPath, [bin, 'matrix', WRONG], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    // Not a terminal: no colour codes.
    expect(bad.stdout).not.toContain('\u001b[');
  });
});
