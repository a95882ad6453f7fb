/**
 * The Pages workflow (.github/workflows/pages.yml) as a fork would run it: every action pinned
 * to a full commit with its tag in a comment, the build writing where the upload reads, and the
 * deployment holding the only write permissions.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const text = readFileSync(new URL('../../.github/workflows/pages.yml', import.meta.url), 'utf8');

interface Step {
  uses?: string;
  run?: string;
  id?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}
const wf = parse(text) as {
  on: { push: { branches: string[] }; workflow_dispatch: unknown };
  permissions: Record<string, string>;
  concurrency: { group: string; 'cancel-in-progress': boolean };
  jobs: { build: Job; deploy: Job };
};
const steps = [...wf.jobs.build.steps, ...wf.jobs.deploy.steps];
const uses = (name: string) => steps.find((s) => s.uses?.startsWith(`${name}@`));

describe('the Pages workflow', () => {
  it('runs on pushes to main and by hand, one deployment at a time', () => {
    expect(wf.on.push.branches).toEqual(['main']);
    expect('workflow_dispatch' in wf.on).toBe(true);
    expect(wf.concurrency).toEqual({ group: 'pages', 'cancel-in-progress': false });
  });

  it('pins every action to a full commit, its release tag in a comment', () => {
    const lines = text.split('\n').filter((l) => /^\s*(- )?uses:/.test(l));
    expect(lines.length).toBe(5);
    for (const l of lines) expect(l).toMatch(/uses: [\w-]+\/[\w-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it('builds with Node 20 as package.json asks, and uploads what Vite writes', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.engines.node).toMatch(/^>=20\./);
    expect(uses('actions/setup-node')?.with?.['node-version']).toBe(20);
    const runs = wf.jobs.build.steps.map((s) => s.run).filter(Boolean);
    expect(runs).toEqual(expect.arrayContaining(['npm ci --no-audit --no-fund', 'npm run build']));
    expect(uses('actions/upload-pages-artifact')?.with?.path).toBe('dist');
  });

  it('gives the site address to the build only through configure-pages', () => {
    const build = wf.jobs.build.steps.find((s) => s.run === 'npm run build');
    expect(build?.env).toEqual({ HOOKPATH_SITE_URL: '${{ steps.pages.outputs.base_url }}' });
    expect(uses('actions/configure-pages')?.id).toBe('pages');
  });

  it('keeps write permissions to the deploy job', () => {
    expect(wf.permissions).toEqual({ contents: 'read' });
    expect(wf.jobs.build.permissions).toBeUndefined();
    expect(wf.jobs.deploy.needs).toBe('build');
    expect(wf.jobs.deploy.permissions).toEqual({ pages: 'write', 'id-token': 'write' });
    expect(uses('actions/deploy-pages')).toBeDefined();
  });
});
