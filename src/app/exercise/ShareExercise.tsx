import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ExerciseController } from './controller.ts';

/** For instructors: an exercise file in, a link that carries it out (checked first). */
export function ShareExercise({ c }: { c: ExerciseController }) {
  const { t } = useTranslation('exercise');
  const id = useId();
  const [text, setText] = useState('');
  const [result, setResult] = useState<
    { url: string } | { error: string; lines: readonly string[] } | null
  >(null);
  const [copied, setCopied] = useState(false);
  const make = async () => {
    setCopied(false);
    setResult(await c.makeLink(text));
  };
  return (
    <details className="exercise-section">
      <summary>
        <h3>{t('share.title')}</h3>
      </summary>
      <p className="muted">{t('share.intro')}</p>
      <label htmlFor={`${id}-text`} className="field-label">
        {t('share.label')}
      </label>
      <textarea
        id={`${id}-text`}
        className="share-text"
        rows={6}
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
        data-testid="share-exercise-text"
      />
      <div className="row">
        <button
          type="button"
          onClick={() => void make()}
          disabled={!text.trim()}
          data-testid="share-exercise-make"
        >
          {t('share.make')}
        </button>
      </div>
      <div role="status">
        {result && 'url' in result && (
          <div className="share-result">
            <label htmlFor={`${id}-url`} className="field-label">
              {t('share.link')}
            </label>
            <input id={`${id}-url`} readOnly value={result.url} data-testid="share-exercise-url" />
            <button
              type="button"
              onClick={() => {
                void navigator.clipboard?.writeText(result.url).catch(() => undefined);
                setCopied(true);
              }}
            >
              {copied ? t('share.copied') : t('share.copy')}
            </button>
          </div>
        )}
        {result && 'error' in result && (
          <div className="status-error" data-testid="share-exercise-error">
            <p>{t('share.invalid', { message: result.error })}</p>
            <ul>
              {result.lines.map((l, i) => (
                <li key={i}>{l}</li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </details>
  );
}
