import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

export const HELP_EVENT = 'hookpath:help';

/** The keyboard shortcuts, opened with the button or "?". */
export function HelpPopover() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const id = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const toggle = () => setOpen((o) => !o);
    const root = ref.current?.closest('.lab');
    root?.addEventListener(HELP_EVENT, toggle);
    return () => root?.removeEventListener(HELP_EVENT, toggle);
  }, []);
  useEffect(() => {
    if (!open) return;
    const close = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('keydown', close);
    return () => window.removeEventListener('keydown', close);
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
  ];
  return (
    <div className="help" ref={ref}>
      <button
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
          className="popover"
          id={id}
          role="dialog"
          aria-label={t('help.title')}
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
          <button type="button" className="text" onClick={() => setOpen(false)}>
            {t('help.close')}
          </button>
        </div>
      )}
    </div>
  );
}
