/**
 * The diagram in words, for screen readers: the drawing is one `role="img"`, so the tooltips
 * inside it (a host's full name, its addresses, an interface cut to its bar) are never read.
 * This is what they say, host by host, in drawing order; the step itself is announced by the
 * step explanation (StepExplain's live region).
 */
import type { DiagramLayout, HostBox } from './layout.ts';

/** i18next's `t`, as far as this needs it. */
type T = (key: string, params?: Record<string, string | number>) => string;

function hostLine(h: HostBox, t: T): string {
  const kind = t(`kind.${h.kind}`);
  // A pod's title is its workload, its subtitle the generated pod name; other hosts' subtitle
  // says what they are (e.g. "control plane").
  const what = h.subtitle ? `${kind}, ${h.subtitle}` : kind;
  const parts = [`${h.title} (${what})`];
  if (h.ips.length) parts.push(h.ips.join(', '));
  if (h.ifaces.length)
    parts.push(t('diagram.desc.ifaces', { list: h.ifaces.map((i) => i.name).join(', ') }));
  if (h.processes.length)
    parts.push(t('diagram.desc.processes', { list: h.processes.map((p) => p.label).join(', ') }));
  if (h.hiddenPods > 0) parts.push(t('diagram.desc.hiddenPods', { count: h.hiddenPods }));
  if (h.onPath) parts.push(t('diagram.desc.onPath'));
  return `${parts.join(t('diagram.desc.sep'))}${t('diagram.desc.end')}`;
}

/** One sentence per host, after a heading sentence with their number. */
export function describeDiagram(layout: DiagramLayout, t: T): string[] {
  return [
    t('diagram.desc.hosts', { count: layout.hosts.length }),
    ...layout.hosts.map((h) => hostLine(h, t)),
  ];
}
