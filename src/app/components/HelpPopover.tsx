import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { tabToggleKey } from '../editor/keys.ts';

export const HELP_EVENT = 'hookpath:help';

/**
 * The keyboard shortcuts, opened with the button or "?". Opening moves the focus into the
 * popover; Escape or Close puts it back on the button. No focus scrolls (in an embed it would move
 * the blog post around the iframe).
 */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function HelpPopover() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const id = useId();
  const ref = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const close = () => {
    setOpen(false);
    button.current?.focus({ preventScroll: true });
  };
  useEffect(() => {
    if (open) dialog.current?.focus({ preventScroll: true });
  }, [open]);
  useEffect(() => {
    const toggle = () => setOpen((o) => !o);
    const root = ref.current?.closest('.lab');
    root?.addEventListener(HELP_EVENT, toggle);
    return () => root?.removeEventListener(HELP_EVENT, toggle);
  }, []);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      // Back to the button when the focus was in the popover (or nowhere), not when elsewhere.
      const at = document.activeElement;
      if (!at || at === document.body || ref.current?.contains(at))
        button.current?.focus({ preventScroll: true });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  const rows: [string, string][] = [
    ['Space', t('help.space')],
    ['← →', t('help.arrows')],
    ['Home End', t('help.home')],
    ['R', t('help.reply')],
    ['F O', t('help.camera')],
    ['+ −', t('help.zoom')],
    ['C', t('help.conntrack')],
    ['L', t('help.legend')],
    ['?', t('help.help')],
    ['Tab Shift+Tab', t('help.tab')],
    [tabToggleKey(), t('help.tabIndent')],
    ['Esc', t('help.escape')],
  ];
  return (
    <div className="help" ref={ref}>
      <button
        ref={button}
        type="button"
        className="icon"
        aria-expanded={open}
        aria-controls={id}
        title={t('help.open')}
        aria-label={t('help.open')}
        onClick={() => setOpen(!open)}
        data-testid="help-button"
      >
        ?
      </button>
      {open && (
        <div
          ref={dialog}
          className="popover"
          id={id}
          role="dialog"
          aria-label={t('help.title')}
          tabIndex={-1}
          data-testid="help-popover"
        >
          <h3>{t('help.title')}</h3>
          <dl>
            {rows.map(([k, v]) => (
              <div key={k}>
                <dt>
                  {k.split(' ').map((x) => (
                    <kbd key={x}>{x}</kbd>
                  ))}
                </dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
          <button type="button" className="text" onClick={close} data-testid="help-close">
            {t('help.close')}
          </button>
        </div>
      )}
    </div>
  );
}
