import { useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ExerciseController } from './controller.ts';

/** Export the progress as a small JSON file, or import one (validated; nothing leaves the browser). */
export function ProgressFile({ c }: { c: ExerciseController }) {
  const { t } = useTranslation('exercise');
  const input = useRef<HTMLInputElement>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const id = useId();
  const download = () => {
    const url = URL.createObjectURL(new Blob([c.exportProgress()], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'hookpath-progress.json';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  const load = async (file: File | undefined) => {
    if (!file) return;
    const r = c.importProgress(await file.text());
    setNote(
      'error' in r
        ? { ok: false, text: t('progress.importFailed', { message: r.error }) }
        : { ok: true, text: t('progress.imported', { count: r.count }) },
    );
    if (input.current) input.current.value = '';
  };
  return (
    <section className="exercise-section" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{t('progress.title')}</h3>
      <p className="muted">{t('progress.note')}</p>
      <div className="row">
        <button type="button" onClick={download} data-testid="progress-export">
          {t('progress.export')}
        </button>
        <label className="button" data-testid="progress-import-label">
          {t('progress.import')}
          <input
            ref={input}
            type="file"
            accept="application/json,.json"
            className="sr-only"
            onChange={(e) => void load(e.target.files?.[0])}
            data-testid="progress-import"
          />
        </label>
      </div>
      <p
        role="status"
        className={note && !note.ok ? 'status-error' : 'muted'}
        data-testid="progress-note"
      >
        {note?.text}
      </p>
    </section>
  );
}
