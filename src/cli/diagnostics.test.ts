/**
 * One problem type from every reader to the terminal: a scenario error, a manifest error, an
 * iptables rule error and an error in a file given on the command line (--host) are each the
 * engine's Diagnostic, and the CLI prints each as `file:line:column: ...` with formatDiagnostic.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterOf } from '../cluster/lab.ts';
import { loadScenario } from '../cluster/scenario.ts';
import { miniWith } from '../cluster/testing/mini-scenario.ts';
import { buildNetwork, formatDiagnostic, parseRuleset, type Diagnostic } from '../engine/index.ts';
import { runCli } from './cli.ts';
import { inFile } from './diagnostics.ts';
import { loadHostFile } from './host-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookpath-diag-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function stderr(...argv: string[]): string {
  let err = '';
  runCli(argv, { out: () => {}, err: (t) => void (err += t) });
  return err;
}

function firstError(ds: readonly Diagnostic[]): Diagnostic {
  const d = ds.find((x) => x.severity === 'error');
  if (!d) throw new Error('no error');
  return d;
}

const PACKET = ['--packet', 'tcp 10.0.0.2:40000 > 10.0.0.1:22'];

describe('one Diagnostic, one formatter, from every reader to the terminal', () => {
  it('a scenario error: the field at its line and column in the file', () => {
    const text = miniWith('name: cp-1', 'name: "cp\u200b-1"');
    const path = file('name.yaml', text);
    const read = loadScenario(text);
    expect(read.ok).toBe(false);
    const line = formatDiagnostic(firstError(read.diagnostics), path);
    expect(line).toMatch(new RegExp(`^${path}:7:13: error: cluster\\.nodes\\.0\\.name: `));
    expect(stderr('run', path)).toContain(line);
  });

  it('a manifest error: a position in the manifests block, said in the scenario file', () => {
    const text = miniWith(
      'ports: [{ port: 80, targetPort: 8080 }]',
      'ports: [{ port: 80000, targetPort: 8080 }]',
    );
    const path = file('manifest.yaml', text);
    const read = loadScenario(text);
    if (!read.ok) throw new Error('the scenario itself should load');
    const d = firstError(clusterOf(read.value, undefined, undefined).diagnostics);
    expect(d).toMatchObject({
      source: 'manifests',
      field: 'Service default/web: spec.ports[0].port',
    });
    const line = formatDiagnostic(inFile(d, read.value.manifestsBlock(undefined)), path);
    expect(line).toBe(
      `${path}:27:21: error: Service default/web: spec.ports[0].port: 80000 is out of range 1..65535`,
    );
    expect(stderr('run', path)).toContain(line);
  });

  it('a rule error in a --rules file: its line, column and hint', () => {
    const text = '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 23 -j NOPE\nCOMMIT\n';
    const path = file('bad.rules', text);
    const d = firstError(parseRuleset(text).diagnostics);
    const line = formatDiagnostic(d, path);
    expect(line).toMatch(new RegExp(`^${path}:3:\\d+: error: `));
    expect(stderr('trace', '--rules', path, '--local', '10.0.0.1/24', ...PACKET)).toContain(line);
  });

  it("a --host file's error found by the engine: the spec's field placed in the file", () => {
    const text = 'interfaces: [{ name: eth0, addresses: [10.0.0.300/24] }]\n';
    const path = file('host.yaml', text);
    const host = loadHostFile(path, text);
    const { problems } = buildNetwork({ hosts: [host.spec] });
    const d = firstError(problems);
    expect(d).toMatchObject({ source: 'host', field: 'interfaces[0].addresses[0]' });
    const placed = host.place(d);
    expect(placed).toMatchObject({ source: path, line: 1, column: 40, field: d.field });
    const line = formatDiagnostic(placed);
    expect(line).toBe(formatDiagnostic({ ...d, line: 1, column: 40 }, path));
    expect(line).toMatch(
      new RegExp(
        `^${path}:1:40: error: interfaces\\[0\\]\\.addresses\\[0\\]: '10\\.0\\.0\\.300/24'`,
      ),
    );
    expect(stderr('trace', '--host', path, ...PACKET)).toContain(line);
  });
});
