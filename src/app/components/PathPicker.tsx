import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useLab } from './context.tsx';
import { PICKER_MAX, type ChoicesSummary, type ShownChoices } from '../worker/choices.ts';
import { isBig, useDeferredWhen } from './defer.ts';

export { PICKER_MAX };

/**
 * What the lists show: with no filter the result's own summary; with one, the worker's answer for
 * it (the previous filter's, while the newest is on its way).
 */
function listed(
  summary: ChoicesSummary | null,
  found: ShownChoices | null,
  filter: string,
): ShownChoices | null {
  if (!summary || !filter) return summary?.unfiltered ?? null;
  return found?.query.key === summary.key ? found : summary.unfiltered;
}

const IP_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):(\d{1,5})$/;

/** Sender and destination from what the model offers (LabResult.choices), or ip:port typed. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function PathPicker() {
  const { t } = useTranslation();
  // A big result's choices render after the rest of the page (defer.ts).
  const current = useLab((s) => s.result?.choices ?? null);
  const summary = useDeferredWhen(current, isBig(current));
  const findChoices = useLab((s) => s.findChoices);
  const path = useLab((s) => s.doc.path);
  const probe = useLab((s) => s.result?.probe ?? null);
  const { setPath } = useActions();
  const [custom, setCustom] = useState('');
  const [bad, setBad] = useState(false);
  const [typing, setTyping] = useState(false);
  const formId = useId();
  const wrap = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!typing) return;
    wrap.current?.querySelector('input')?.focus({ preventScroll: true });
    const key = (e: KeyboardEvent) => e.key === 'Escape' && setTyping(false);
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [typing]);
  const [filter, setFilter] = useState('');
  const from = path?.from ?? probe?.from ?? '';
  const to = path?.to ?? probe?.to ?? '';
  // The choices stay in the worker: a filter's matches are asked for (worker/choice-server.ts).
  const [found, setFound] = useState<ShownChoices | null>(null);
  const f = filter.trim();
  useEffect(() => {
    if (!summary || !f || !findChoices) return;
    let live = true;
    void findChoices({ key: summary.key, filter: f, from, to }).then((r) => {
      if (live && r) setFound(r);
    });
    return () => {
      live = false;
    };
  }, [summary, f, from, to, findChoices]);
  const nSenders = summary?.senders ?? 0;
  const nDests = summary?.destinations ?? 0;
  const big = nSenders > PICKER_MAX || nDests > PICKER_MAX;
  const lists = listed(summary, found, f);
  const { shown: senders, more: moreSenders } = lists?.senders ?? { shown: [], more: 0 };
  const { shown: dests, more: moreDests } = lists?.destinations ?? { shown: [], more: 0 };
  const known = dests.some((d) => d.id === to);
  // A few kinds for up to 300 options: each translated once per render, not once per option.
  const kinds = new Map<string, string>();
  const kindText = (key: string) => {
    let v = kinds.get(key);
    if (v === undefined) kinds.set(key, (v = t(key)));
    return v;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const v = custom.trim();
    if (!IP_PORT.test(v)) return setBad(true);
    setBad(false);
    setTyping(false);
    setPath({ from, to: v });
  };

  return (
    <div className={big ? 'path-picker many' : 'path-picker'} data-testid="path-picker">
      <label>
        <span className="sr-only">{t('path.from')}</span>
        <select
          data-testid="path-from"
          value={from}
          onChange={(e) => setPath({ from: e.target.value, to })}
        >
          {!senders.some((s) => s.id === from) && from && <option value={from}>{from}</option>}
          {senders.map((s) => (
            <option key={s.id} value={s.id}>
              {kindText(`kind.${s.kind}`)} · {s.label}
            </option>
          ))}
          {moreSenders > 0 && (
            <option disabled value="">
              {t('path.more', { count: moreSenders })}
            </option>
          )}
        </select>
      </label>
      <span className="path-arrow" aria-hidden="true">
        →
      </span>
      <label>
        <span className="sr-only">{t('path.to')}</span>
        <select
          data-testid="path-to"
          value={known ? to : ''}
          onChange={(e) => setPath({ from, to: e.target.value })}
        >
          {!known && <option value="">{to ? `${t('dest.custom')} · ${to}` : '—'}</option>}
          {dests.map((d) => (
            <option key={d.id} value={d.id}>
              {kindText(`dest.${d.kind}`)} · {d.label}
            </option>
          ))}
          {moreDests > 0 && (
            <option disabled value="">
              {t('path.more', { count: moreDests })}
            </option>
          )}
        </select>
      </label>
      {big && (
        <input
          type="search"
          className="path-filter"
          data-testid="path-filter"
          value={filter}
          placeholder={t('path.filter', { count: nSenders + nDests })}
          aria-label={t('path.filterLabel')}
          onChange={(e) => setFilter(e.target.value)}
        />
      )}
      {/* Any ip:port, typed: behind a button, so the picker and the diagram tools share a row. */}
      <div className="path-custom-wrap" ref={wrap}>
        <button
          type="button"
          className={`text path-custom-toggle${known ? '' : ' on'}`}
          aria-expanded={typing}
          aria-controls={typing ? formId : undefined}
          title={t('path.customTitle')}
          onClick={() => setTyping(!typing)}
          data-testid="path-custom-toggle"
        >
          ip:port…
        </button>
        {typing && (
          <form className="popover path-custom" id={formId} onSubmit={submit}>
            <input
              data-testid="path-custom"
              value={custom}
              placeholder={t('path.custom')}
              title={t('path.customTitle')}
              aria-invalid={bad}
              aria-label={t('path.customTitle')}
              onChange={(e) => (setCustom(e.target.value), setBad(false))}
            />
            <button type="submit">{t('path.send')}</button>
            {bad && <span className="path-error">{t('path.invalid')}</span>}
          </form>
        )}
      </div>
    </div>
  );
}
