/**
 * The prebuilt CLI validates scenario and host files with Ajv code generated at build time: it
 * must accept and reject exactly what the runtime compiler does, with the same errors (their
 * values and schema parts make the messages). The generated module is imported for real.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { AJV_OPTIONS, validatorModule } from './precompile-schemas.mjs';

const repo = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'hookpath-schemas-'));
symlinkSync(`${repo}node_modules`, join(dir, 'node_modules'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function both(file: string): Promise<[ValidateFunction, ValidateFunction]> {
  const schema = JSON.parse(readFileSync(`${repo}${file}`, 'utf8')) as object;
  const out = join(dir, `${file.replace(/\W/g, '_')}.mjs`);
  writeFileSync(out, validatorModule(schema));
  const built = (await import(pathToFileURL(out).href)) as { default: ValidateFunction };
  return [new Ajv(AJV_OPTIONS).compile(schema), built.default];
}

function same(runtime: ValidateFunction, built: ValidateFunction, value: unknown): boolean {
  const ok = runtime(value);
  expect(built(value)).toBe(ok);
  expect(JSON.stringify(built.errors ?? null)).toBe(JSON.stringify(runtime.errors ?? null));
  return ok;
}

const scenarios = readdirSync(`${repo}scenarios`)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => parse(readFileSync(`${repo}scenarios/${f}`, 'utf8')) as Record<string, unknown>);

describe('validators compiled at build time', () => {
  it('the scenario schema: every scenario passes, broken ones fail with the same errors', async () => {
    const [runtime, built] = await both('src/cluster/scenario.schema.json');
    expect(scenarios.length).toBeGreaterThan(5);
    for (const s of scenarios) expect(same(runtime, built, s)).toBe(true);
    const first = scenarios[0] as Record<string, unknown>;
    const cluster = first.cluster as { nodes: Record<string, unknown>[] };
    const broken: unknown[] = [
      { ...first, title: undefined },
      { ...first, titel: 'typo' },
      { ...first, kubeProxyModes: ['iptables', 'userspace'] },
      { ...first, cluster: { ...cluster, nodes: [{ ...cluster.nodes[0], name: 'cp 1' }] } },
      { ...first, cluster: { ...cluster, nodes: [{ ...cluster.nodes[0], ip: 7 }] } },
      { ...first, cluster: { ...cluster, nodes: 'cp-1' } },
      [],
      null,
    ];
    for (const b of broken) expect(same(runtime, built, JSON.parse(JSON.stringify(b)))).toBe(false);
  });

  it('the host schema: a host passes, broken ones fail with the same errors', async () => {
    const [runtime, built] = await both('src/cli/host.schema.json');
    const host = {
      name: 'node',
      interfaces: [{ name: 'eth0', addresses: ['192.168.1.10/24'] }],
      routes: [{ to: 'default', via: '192.168.1.1' }],
    };
    const ok = same(runtime, built, host);
    const broken: unknown[] = [
      { ...host, interfaces: [{ name: 'eth0', addresses: 'x' }] },
      { ...host, extra: 1 },
      { ...host, name: '' },
    ];
    for (const b of broken) expect(same(runtime, built, b)).toBe(false);
    expect(ok).toBe(true);
  });
});
