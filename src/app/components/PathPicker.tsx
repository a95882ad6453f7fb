import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useLab } from './context.tsx';

/** Options a picker lists at most; past that a filter narrows them (a native select stays fast). */
export const PICKER_MAX = 150;

/** The options to list: those matching the filter, at most PICKER_MAX, the chosen one always. */
export function bounded<T extends { id: string; label: string }>(
  all: readonly T[],
  filter: string,
  chosen: string,
): { shown: T[]; more: number } {
  if (all.length <= PICKER_MAX && !filter) return { shown: [...all], more: 0 };
  const f = filter.trim().toLowerCase();
  const shown: T[] = [];
  let matching = 0;
  for (const o of all) {
    if (f && !o.label.toLowerCase().includes(f) && !o.id.toLowerCase().includes(f)) continue;
    matching++;
    if (shown.length < PICKER_MAX || o.id === chosen) shown.push(o);
  }
  return { shown, more: matching - shown.length };
}

const IP_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):(\d{1,5})$/;

/** Sender and destination from what the model offers (LabResult.choices), or ip:port typed. */
export function PathPicker() {
  const { t } = useTranslation();
  const choices = useLab((s) => s.result?.choices ?? null);
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
  const allSenders = choices?.senders ?? [];
  const allDests = choices?.destinations ?? [];
  const from = path?.from ?? probe?.from ?? '';
  const to = path?.to ?? probe?.to ?? '';
  const big = allSenders.length > PICKER_MAX || allDests.length > PICKER_MAX;
  const { shown: senders, more: moreSenders } = bounded(allSenders, filter, from);
  const { shown: dests, more: moreDests } = bounded(allDests, filter, to);
  const known = dests.some((d) => d.id === to);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const v = custom.trim();
    if (!IP_PORT.test(v)) return setBad(true);
    setBad(false);
    setTyping(false);
    setPath({ from, to: v });
  };

  return (
    <div className="path-picker" data-testid="path-picker">
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
              {t(`kind.${s.kind}`)} · {s.label}
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
              {t(`dest.${d.kind}`)} · {d.label}
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
          placeholder={t('path.filter', { count: allSenders.length + allDests.length })}
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
