import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import { createI18n } from '../i18n/index.ts';
import { labView } from '../worker/view.ts';
import { describeDiagram } from './describe.ts';
import { buildScene } from './scene.ts';
import { buildTimeline } from './timeline.ts';

// Relative to the repository root (vitest's cwd).
const VIP22 = readFileSync('scenarios/vip22-sshd-or-service.yaml', 'utf8');

function layoutOf(variant: string) {
  const r = labView(runLab({ scenario: VIP22, variant }));
  const run = r.runs[0];
  if (!r.ok || !run) throw new Error(`${variant}: no run`);
  const scene = buildScene(r, buildTimeline(run, r.hooks));
  if (!scene) throw new Error(`${variant}: no scene`);
  return scene.layout;
}

describe('describeDiagram: what the tooltips say, read out', () => {
  const layout = layoutOf('lb-service');

  it('names every drawn host with its kind, addresses and interfaces, in drawing order', () => {
    const i18n = createI18n('en');
    const lines = describeDiagram(layout, (k, p) => i18n.t(k, p ?? {}));
    expect(lines[0]).toBe(`The diagram shows ${layout.hosts.length} hosts:`);
    expect(lines).toHaveLength(layout.hosts.length + 1);
    layout.hosts.forEach((h, i) => {
      const line = lines[i + 1] as string;
      expect(line.startsWith(`${h.title} (`)).toBe(true);
      for (const ip of h.ips) expect(line).toContain(ip);
      for (const f of h.ifaces) expect(line).toContain(f.name);
    });
  });

  it('says which hosts are on the path and which processes listen there (sshd on the node)', () => {
    const i18n = createI18n('en');
    const lines = describeDiagram(layout, (k, p) => i18n.t(k, p ?? {}));
    const onPath = layout.hosts.filter((h) => h.onPath).map((h) => h.title);
    expect(onPath.length).toBeGreaterThan(0);
    for (const title of onPath)
      expect(lines.find((l) => l.startsWith(`${title} (`))).toContain('on the packet’s path');
    expect(lines.some((l) => /listening: .*sshd :22/.test(l))).toBe(true);
  });

  it('speaks Chinese in the zh UI', () => {
    const i18n = createI18n('zh');
    const lines = describeDiagram(layout, (k, p) => i18n.t(k, p ?? {}));
    expect(lines[0]).toBe(`图中共有 ${layout.hosts.length} 台主机：`);
    expect(lines.some((l) => l.endsWith('；在数据包的路径上。'))).toBe(true);
  });
});
