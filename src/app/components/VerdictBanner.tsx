import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ClusterView, RunView } from '../../cluster/types.ts';
import { useActions, useLab } from './context.tsx';
import {
  outcomeLabel,
  partialNote,
  percent,
  toneOf,
  verdictOf,
  type Tone,
} from '../model/verdict.ts';

const TONE_ICON: Readonly<Record<Tone, string>> = { ok: '✓', info: '→', warn: '⊘', bad: '✕' };

/** Branch chips shown before "show all": hundreds of endpoints must not bury the answer. */
export const CHIPS_SHOWN = 12;

/** One sentence answering the question, and for random branches the split with percentages. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function VerdictBanner() {
  const { t } = useTranslation();
  const result = useLab((s) => s.result);
  const run = useLab((s) => s.doc.run);
  const stale = useLab((s) => s.stale);
  const resultFor = useLab((s) => s.resultFor);
  const { setRun } = useActions();
  const [allChips, setAllChips] = useState(false);
  const runs = result?.runs ?? [];
  const sel = runs[run] ?? runs[0];
  if (!result || !sel)
    return (
      <div className="verdict verdict-none" data-testid="verdict" role="status">
        {t('verdict.none')}
      </div>
    );
  const v = verdictOf(sel, result.cluster);
  const vias = branchVias(runs, result.cluster);
  const partial = partialNote(result);
  const kind = sel.outcome.kind;
  const tone = toneOf(kind);
  // The first chips, and the selected one wherever it is.
  const shown = runs
    .map((r, i) => ({ r, i }))
    .filter(({ i }) => allChips || i < CHIPS_SHOWN || i === run);
  const splitText = t(partial ? 'verdict.split.partial' : splitKey(runs), { count: runs.length });
  return (
    <div
      className={`verdict verdict-${tone}${stale ? ' is-stale' : ''}`}
      data-testid="verdict"
      data-outcome={kind}
      // Whose answer this is while a switch of variant or mode is being simulated (e2e waits on it).
      data-variant={resultFor?.variant ?? ''}
      data-mode={resultFor?.mode ?? ''}
      role="status"
      aria-live="polite"
    >
      <span className="verdict-icon" aria-hidden="true">
        {TONE_ICON[tone]}
      </span>
      <span className="verdict-text" data-testid="verdict-text">
        {t(v.key, v.params ?? {})}
      </span>
      {partial && (
        <span className="verdict-partial" data-testid="verdict-partial">
          {t(partial.note.key, {
            ...partial.note.params,
            limit: t(partial.limit.key, partial.limit.params ?? {}),
          })}
        </span>
      )}
      {runs.length > 1 && (
        <span className="verdict-split" role="group" aria-label={t('runs.title')}>
          {/* Who splits the outcomes, in full on wide screens; the count alone on narrow ones
              (the sentence stays in the tooltip). */}
          <span className="verdict-split-title split-long">{splitText}</span>
          <span className="verdict-split-title split-short" title={splitText}>
            {t('verdict.outcomes', { count: runs.length })}
          </span>
          {shown.map(({ r, i }) => {
            const o = outcomeLabel(r, result.cluster);
            const via = vias[i];
            return (
              <button
                key={i}
                type="button"
                className={`chip${i === run ? ' selected' : ''}`}
                aria-pressed={i === run}
                data-testid={`run-${i}`}
                title={'host' in r.outcome && r.outcome.host ? r.outcome.host : undefined}
                onClick={() => setRun(i)}
              >
                {t('verdict.branch', {
                  p: percent(r.probability),
                  outcome: t(o.key, o.params ?? {}),
                })}
                {via && <span className="via"> · {via}</span>}
              </button>
            );
          })}
          {runs.length > CHIPS_SHOWN && (
            <button
              type="button"
              className="chip chip-more"
              data-testid="runs-toggle"
              aria-expanded={allChips}
              onClick={() => setAllChips(!allChips)}
            >
              {allChips
                ? t('verdict.fewer')
                : t('verdict.more', { count: runs.length - shown.length })}
            </button>
          )}
        </span>
      )}
    </div>
  );
}

/** Who decides between the branches: kube-proxy's statistic rules, a router's ECMP, or both. */
function splitKey(
  runs: readonly { readonly choices: readonly { readonly label: string }[] }[],
): string {
  const labels = runs.flatMap((r) => r.choices.map((c) => c.label));
  const ecmp = labels.some((l) => l.startsWith('ecmp'));
  const stat = labels.some((l) => l.startsWith('statistic'));
  return ecmp && stat ? 'verdict.split.both' : ecmp ? 'verdict.split.ecmp' : 'verdict.split';
}

/**
 * Outcomes that end at the same place but took different paths (a router's ECMP picked another
 * node) get the first node they went through, so their chips differ.
 */
function branchVias(
  runs: readonly RunView[],
  cluster: ClusterView | null,
): readonly (string | null)[] {
  const end = (r: RunView) => `${r.outcome.kind}/${'host' in r.outcome ? r.outcome.host : ''}`;
  const nodes = new Set(cluster?.hosts.filter((h) => h.kind === 'node').map((h) => h.name));
  return runs.map((r) => {
    const twins = runs.filter((x) => end(x) === end(r)).length;
    if (twins < 2) return null;
    return r.events.find((e) => nodes.has(e.host))?.host ?? null;
  });
}
