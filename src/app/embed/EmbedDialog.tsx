import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLab } from '../components/context.tsx';
import { usePrefs } from '../components/prefs.tsx';
import { Icon } from '../components/Icon.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { readableStep } from './apply.ts';
import { siteUrl } from './EmbedBar.tsx';
import { EmbedOptionsForm } from './EmbedOptionsForm.tsx';
import { RESIZE_MESSAGE } from './useAutoHeight.ts';
import { embedUrl, iframeSnippet, type EmbedOptions } from './urls.ts';
import { modifierKey } from './modifier.ts';

export const PREVIEW_WIDTHS = [400, 700, 900] as const;
/** The iframe's height until the preview has said its own. */
const DEFAULT_HEIGHT = 560;

/** "Embed" beside "Share": opens the dialog that makes the snippet. */
export function EmbedButton() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="text"
        onClick={() => setOpen(true)}
        title={t('share.embedTitle')}
        aria-haspopup="dialog"
        data-testid="embed-button"
      >
        <Icon name="code" /> <span className="action-label">{t('share.embed')}</span>
      </button>
      {open && <EmbedDialog onClose={() => setOpen(false)} />}
    </>
  );
}

/**
 * The embed's options, a live preview (the embed itself, in an iframe at 400, 700 or 900 px) and
 * the snippet to copy. A modal <dialog>: the browser keeps the focus inside and Escape closes it.
 */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
function EmbedDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const ref = useRef<HTMLDialogElement>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  const snippetRef = useRef<HTMLTextAreaElement>(null);
  const titleId = useId();
  const scenario = useLab((s) => s.scenario);
  const place = useLab((s) => s);
  const edited = place.doc.manifests !== place.original;
  const current = readableStep(stepsOf(place), place.doc.step);
  const [o, setO] = useState<EmbedOptions>(() => ({
    step: place.doc.step > 0 ? 'current' : 'start',
    theme: 'auto',
    lang,
    autoplay: false,
    verdictAfter: false,
    editor: 'hidden',
    pickers: 'none',
  }));
  const [width, setWidth] = useState<(typeof PREVIEW_WIDTHS)[number]>(700);
  const [height, setHeight] = useState<number | null>(null);
  const [script, setScript] = useState(true);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);

  // The preview sizes itself as embed.js would size it: from its own messages, and only its own.
  useEffect(() => {
    const on = (e: MessageEvent) => {
      const data = e.data as { type?: unknown; height?: unknown } | null;
      if (e.source !== frame.current?.contentWindow || e.origin !== globalThis.location.origin)
        return;
      if (data?.type !== RESIZE_MESSAGE || typeof data.height !== 'number') return;
      setHeight(Math.min(Math.max(Math.round(data.height), 100), 4000));
    };
    globalThis.addEventListener('message', on);
    return () => globalThis.removeEventListener('message', on);
  }, []);

  if (!scenario) return null;
  const url = embedUrl(
    siteUrl(),
    {
      doc: place.doc,
      original: place.original,
      defaultPath: scenario.defaultPath,
      steps: stepsOf(place),
    },
    o,
  );
  const title = t('embed.frameTitle', { title: scenario.title[o.lang] });
  const snippet = iframeSnippet(url, {
    title,
    height: height ?? DEFAULT_HEIGHT,
    script: script ? `${siteUrl()}embed.js` : null,
  });

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(snippet);
      setCopied('yes');
      setTimeout(() => setCopied(null), 2000);
    } catch {
      snippetRef.current?.focus({ preventScroll: true });
      snippetRef.current?.select();
      setCopied('failed');
    }
  };

  return (
    <dialog
      ref={ref}
      className="embed-dialog"
      aria-labelledby={titleId}
      onClose={onClose}
      data-testid="embed-dialog"
    >
      <div className="embed-dialog-head">
        <h2 id={titleId}>{t('embedDialog.title')}</h2>
        <button
          type="button"
          className="icon"
          onClick={() => ref.current?.close()}
          aria-label={t('embedDialog.close')}
          title={t('embedDialog.close')}
          data-testid="embed-close"
        >
          ✕
        </button>
      </div>
      <div className="embed-dialog-body">
        <div className="embed-dialog-side">
          <p className="embed-dialog-intro">
            {t('embedDialog.intro', { scenario: scenario.title[lang] })}
            {edited && <> {t('embedDialog.edited')}</>}
          </p>
          <EmbedOptionsForm options={o} onChange={setO} current={current} />
          <fieldset className="embed-snippet">
            <legend>{t('embedDialog.snippet')}</legend>
            <label>
              <input
                type="checkbox"
                checked={script}
                onChange={(e) => setScript(e.target.checked)}
                data-testid="embed-with-script"
              />
              {t('embedDialog.withScript')}
            </label>
            <textarea
              ref={snippetRef}
              readOnly
              value={snippet}
              rows={5}
              aria-label={t('embedDialog.snippet')}
              spellCheck={false}
              data-testid="embed-snippet"
            />
            <div className="embed-copy-row">
              <button
                type="button"
                className="primary"
                onClick={() => void copy()}
                data-testid="embed-copy"
              >
                <Icon name={copied === 'yes' ? 'check' : 'code'} /> {t('embedDialog.copy')}
              </button>
              <span role="status" className="embed-copied" data-testid="embed-copied">
                {copied === 'yes'
                  ? t('embedDialog.copied')
                  : copied === 'failed'
                    ? t('embedDialog.copyFailed', { key: modifierKey() })
                    : ''}
              </span>
            </div>
          </fieldset>
        </div>
        <div className="embed-preview-pane">
          <div className="embed-preview-head">
            <h3>{t('embedDialog.preview')}</h3>
            <div role="radiogroup" aria-label={t('embedDialog.width')} className="segmented">
              {PREVIEW_WIDTHS.map((w) => (
                <label key={w} className={w === width ? 'on' : ''}>
                  <input
                    type="radio"
                    name="embed-width"
                    checked={w === width}
                    onChange={() => setWidth(w)}
                    data-testid={`embed-width-${w}`}
                  />
                  {w} px
                </label>
              ))}
            </div>
            {height !== null && (
              <span className="muted" data-testid="embed-preview-height">
                {t('embedDialog.height', { height })}
              </span>
            )}
          </div>
          {/* Scrolls when the chosen width is wider than the room: focusable for the keyboard. */}
          <div
            className="embed-preview-scroll"
            role="region"
            aria-label={t('embedDialog.preview')}
            tabIndex={0}
          >
            <iframe
              ref={frame}
              src={url}
              title={title}
              style={{ width, height: height ?? DEFAULT_HEIGHT }}
              data-testid="embed-preview"
            />
          </div>
        </div>
      </div>
    </dialog>
  );
}
