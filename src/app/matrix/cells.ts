/** Words for matrix cells: short responder names, one-line summaries, what differs between two. */
import type { TFunction } from 'i18next';
import type { MatrixCell } from '../worker/matrix-protocol.ts';
import type { ScenarioEntry } from '../scenario/entry.ts';
import { ORIGINAL, parseCompare } from '../compare/spec.ts';

/** `pod/web (2 pods)` → `web ×2`, `node/core-1/kubelet` → `core-1 kubelet`, `pod/pod-b` → `pod-b`. */
export function shortResponder(who: string | null): string | null {
  if (!who) return null;
  return who
    .split(', ')
    .map((w) => {
      const many = /^pod\/(.+) \((\d+) pods\)$/.exec(w);
      if (many) return `${many[1]} ×${many[2]}`;
      if (w.startsWith('pod/')) return w.slice(4);
      const proc = /^(?:node|client|router)\/([^/]+)\/(.+)$/.exec(w);
      return proc ? `${proc[1]} ${proc[2]}` : w;
    })
    .join(', ');
}

/** `answered by pod/web (2 pods), source seen 192.168.10.50 (client/external)`. */
export function cellSummary(c: MatrixCell, t: TFunction): string {
  // A single end that is not an answer says itself: `timeout (rule filter:KUBE-…)`.
  const alone = c.outcome !== 'answered' && c.branches.length === 1 ? c.branches[0] : undefined;
  const parts = [alone ? alone.detail : t(`matrix.outcome.${c.outcome}`)];
  if (c.answeredBy) parts.push(t('matrix.by', { who: c.answeredBy }));
  if (c.srcSeen)
    parts.push(t('matrix.src', { src: `${c.srcSeen}${c.srcSeenAs ? ` (${c.srcSeenAs})` : ''}` }));
  if (c.expected !== null)
    parts.push(`${c.matches ? '✓' : '✗'} ${t('matrix.expected', { expected: c.expected })}`);
  return parts.join(', ');
}

/** Two cells of the same path differ when a reader would see it: outcome, who, source seen. */
export function differs(a: MatrixCell, b: MatrixCell): boolean {
  return (
    a.outcome !== b.outcome ||
    a.answeredBy !== b.answeredBy ||
    a.srcSeenAs !== b.srcSeenAs ||
    a.srcSeen !== b.srcSeen
  );
}

/** The compared side's name: its variant's title, or "as published". */
export function compareTitle(
  compare: string,
  scenario: ScenarioEntry | null,
  lang: 'en' | 'zh',
  t: TFunction,
): string {
  const v = scenario?.variants.find((x) => x.id === compare);
  if (v) return v.title[lang];
  const spec = parseCompare(compare, scenario);
  if (spec?.kind === 'mode') return t(`mode.${spec.mode}`);
  return compare === ORIGINAL ? t('compare.originalTitle') : compare;
}
