/**
 * The pieces of Compare side by side and of the view switch: the "Compare with" picker (beside
 * the variant picker), the Diagram/Matrix switch (beside the diagram), the heading over the two
 * panes with the step where the paths part, and the compared pane itself (a second diagram that
 * follows the lab's step).
 */
import { useTranslation } from 'react-i18next';
import { LabProvider, useActions, useLab } from '../components/context.tsx';
import { DiagramPanel } from '../components/DiagramPanel.tsx';
import { usePrefs } from '../components/prefs.tsx';
import { createLabStore, stepsOf, type LabState } from '../store/lab-store.ts';
import { verdictOf, toneOf } from '../model/verdict.ts';
import { whereOf, verdictOfEvent, detailOf } from '../components/trace-text.ts';
import type { Step } from '../model/timeline.ts';
import { compareTitle } from '../matrix/cells.ts';
import { useStore } from 'zustand';
import { useCompare, useViews } from './views.tsx';
import { MODE_PREFIX, ORIGINAL, otherModes, shownMode } from './spec.ts';

/** "Compare with": off, another variant, or the scenario as published (when edited). */
export function CompareSelect() {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const scenario = useLab((s) => s.scenario);
  const variant = useLab((s) => s.doc.variant ?? s.scenario?.variants[0]?.id ?? null);
  const compare = useLab((s) => s.compare);
  const modes = useLab((s) => otherModes(s).join(' '));
  const a = useActions();
  if (!scenario) return null;
  const others = scenario.variants.filter((v) => v.id !== variant);
  return (
    <label className="compare-select">
      <span className="sr-only">{t('compare.label')}</span>
      <select
        value={compare ?? ''}
        onChange={(e) => a.setCompare(e.target.value || null)}
        data-testid="compare-picker"
      >
        <option value="">{t('compare.off')}</option>
        {others.map((v) => (
          <option key={v.id} value={v.id}>
            {t('compare.with', { title: v.title[lang] })}
          </option>
        ))}
        <option value={ORIGINAL}>{t('compare.original')}</option>
        {modes
          .split(' ')
          .filter(Boolean)
          .map((m) => (
            <option key={m} value={`${MODE_PREFIX}${m}`}>
              {t('compare.mode', { mode: t(`mode.${m}`) })}
            </option>
          ))}
      </select>
    </label>
  );
}

/** Diagram | Matrix | Your host, as pressed-or-not buttons (keyboard: Tab, then Space or Enter). */
export function ViewSwitch() {
  const { t } = useTranslation();
  const view = useLab((s) => s.view);
  const a = useActions();
  return (
    <div className="view-switch" role="group" aria-label={t('view.label')}>
      {(['diagram', 'matrix', 'host'] as const).map((v) => (
        <button
          key={v}
          type="button"
          className={`view-tab${view === v ? ' on' : ''}`}
          aria-pressed={view === v}
          onClick={() => a.setView(v)}
          data-testid={`view-${v}`}
        >
          {t(`view.${v}`)}
        </button>
      ))}
    </div>
  );
}

/** `nat · KUBE-EXT-… → JUMP KUBE-SVL-…` on cp-1: a step in a few words. */
function stepWords(s: Step | null, t: (k: string) => string): string {
  if (!s) return t('compare.ended');
  const e = s.event;
  // What it did first (the part that differs), then where: the line is cut at its end.
  const what = verdictOfEvent(e) || detailOf(e) || e.type;
  return [what, whereOf(e), e.host].filter(Boolean).join(' · ');
}

/** `DNAT (nat KUBE-SEP-…, core-1)`, `DROP (filter KUBE-EXTERNAL-SERVICES, core-1)`. */
function thenWords(s: Step): string {
  const e = s.event;
  if (e.type === 'rule') return `${e.target ?? e.verdict} (${e.table} ${e.chain}, ${e.host})`;
  return `${verdictOfEvent(e) || detailOf(e) || e.type} (${e.host})`;
}

function PaneTitle({ s, title }: { s: LabState; title: string }) {
  const { t } = useTranslation();
  const run = s.result?.runs[s.doc.run] ?? s.result?.runs[0];
  const v = run ? verdictOf(run, s.result?.cluster ?? null) : null;
  return (
    <div className={`compare-title${run ? ` tone-${toneOf(run.outcome.kind)}` : ''}`}>
      <strong>{title}</strong>
      {v && <span className="compare-verdict">{t(v.key, v.params ?? {})}</span>}
    </div>
  );
}

/** Over the two panes: what each side is, and the first step where their paths part. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function CompareHead() {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const views = useViews();
  const main = useLab((s) => s);
  const status = useCompare((s) => s.status);
  const message = useCompare((s) => s.message);
  const d = useCompare((s) => s.divergence);
  const same = useCompare((s) => s.same);
  const at = useCompare((s) => s.at);
  const pane = useStore(views?.pane ?? FALLBACK, (s) => s);
  if (!main.compare || !main.scenario) return null;
  const variant = main.doc.variant ?? main.scenario.variants[0]?.id ?? null;
  const variantTitle = main.scenario.variants.find((v) => v.id === variant)?.title[lang] ?? '';
  const mode = shownMode(main);
  const aTitle =
    main.compare === ORIGINAL && main.doc.manifests !== main.original
      ? t('compare.edited')
      : main.compare.startsWith(MODE_PREFIX) && mode
        ? t(`mode.${mode}`)
        : variantTitle;
  const bTitle = compareTitle(main.compare, main.scenario, lang, t);
  const here = d !== null && at === d.at;
  const side = (which: 'a' | 'b') => {
    if (status !== 'ready' || !d) return null;
    const step = which === 'a' ? d.a : d.b;
    const then = which === 'a' ? d.thenA : d.thenB;
    return (
      <span className="compare-side" data-testid={`divergence-${which}`}>
        {stepWords(step, t)}
        {then
          .filter((x) => x !== step)
          .map((x) => (
            <span key={x.index} className="compare-then">
              {' '}
              ⟶ {thenWords(x)}
            </span>
          ))}
      </span>
    );
  };
  return (
    <div
      className={`compare-head${here ? ' at-divergence' : ''}`}
      data-testid="compare-head"
      data-status={status}
    >
      <PaneTitle s={main} title={aTitle} />
      <PaneTitle s={pane} title={bTitle} />
      <div className="compare-divergence" role="status" data-testid="compare-divergence">
        {status === 'running' && t('compare.running')}
        {status === 'error' && t('compare.error', { message: message ?? '' })}
        {status === 'ready' && same && t('compare.same')}
        {status === 'ready' && d && (
          <>
            <span className="compare-diverge-at">
              {here ? (
                <span className="compare-here">{t('compare.here', { n: d.at + 1 })}</span>
              ) : (
                t('compare.diverge', { n: d.at + 1 })
              )}
            </span>
            {!here && (
              <button
                type="button"
                className="text"
                onClick={() => views?.goToDivergence()}
                data-testid="go-divergence"
              >
                {t('compare.go', { n: d.at + 1 })}
              </button>
            )}
          </>
        )}
      </div>
      {status === 'ready' && d && (
        <>
          {side('a')}
          {side('b')}
        </>
      )}
    </div>
  );
}

/** A store for the hook when the views are not made yet (the first render). */
const FALLBACK = createLabStore();

/** The compared side's diagram, driven by the lab's step (no controls of its own). */
export function ComparePane() {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const views = useViews();
  const compare = useLab((s) => s.compare);
  const scenario = useLab((s) => s.scenario);
  const divergent = useCompare((s) => s.divergence !== null && s.at >= s.divergence.at);
  if (!views || !compare) return null;
  return (
    <div
      className={`compare-pane${divergent ? ' past-divergence' : ''}`}
      data-testid="compare-pane"
      role="region"
      aria-label={t('compare.pane', { title: compareTitle(compare, scenario, lang, t) })}
    >
      <LabProvider store={views.pane}>
        <PaneSteps />
        <DiagramPanel compact />
      </LabProvider>
    </div>
  );
}

/** The compared side's step, for tests and screen readers: `data-step` of its diagram says it too. */
function PaneSteps() {
  const steps = useLab(stepsOf);
  const step = useLab((s) => s.doc.step);
  return (
    <span
      className="sr-only"
      data-testid="compare-step"
      data-step={step}
      data-total={steps.length}
    />
  );
}
