import { createContext, useContext } from 'react';
import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';
import type { EditChoices } from '../store/controller.ts';
import type { AsideEntry } from '../store/persist.ts';

const EditsContext = createContext<EditChoices | null>(null);
export const EditsProvider = EditsContext.Provider;

/** Saves `text` as a file: the way out when the browser will not keep it. */
export function downloadText(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const lines = (text: string) => {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/**
 * Non-blocking bars under the header: a version of the manifests the lab will not drop without the
 * user's say (a link's vs the user's, another tab's, versions kept aside), storage that does not
 * save, and inputs the lab could not use. The lab stays usable while they are shown.
 */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function EditNotices() {
  const { t, i18n } = useTranslation();
  const edits = useContext(EditsContext);
  const conflict = useLab((s) => s.conflict);
  const aside = useLab((s) => s.aside);
  const storage = useLab((s) => s.storageFailure);
  const note = useLab((s) => s.note);
  const scenarioId = useLab((s) => s.doc.scenarioId);
  const variant = useLab((s) => s.doc.variant);
  const manifests = useLab((s) => s.doc.manifests);
  const slow = useLab((s) => s.slow);
  const stopped = useLab((s) => s.failure?.reason === 'timeout');
  const file = `${scenarioId}${variant ? `-${variant}` : ''}.yaml`;
  if (!edits) return null;
  const when = (e: AsideEntry) =>
    e.at ? new Date(e.at).toLocaleString(i18n.language === 'zh' ? 'zh-CN' : 'en') : '—';
  const show = conflict || aside.length > 0 || storage || note || slow || stopped;
  if (!show) return null;
  return (
    <div className="edit-notices" data-testid="edit-notices">
      {conflict?.kind === 'link' && (
        <div className="notice" role="status" data-testid="notice-link">
          <span className="notice-text">{t('notice.link')}</span>
          <button type="button" onClick={edits.openMine} data-testid="notice-open-mine">
            {t('notice.openMine')}
          </button>
          <button
            type="button"
            onClick={edits.keepLink}
            title={t('notice.keepLinkTitle')}
            data-testid="notice-keep-link"
          >
            {t('notice.keepLink')}
          </button>
        </div>
      )}
      {conflict?.kind === 'tab' && (
        <div className="notice" role="status" data-testid="notice-tab">
          <span className="notice-text">{t('notice.tab')}</span>
          <button type="button" onClick={edits.loadTheirs} data-testid="notice-load-theirs">
            {t('notice.loadTheirs')}
          </button>
          <button type="button" onClick={edits.keepMine} data-testid="notice-keep-mine">
            {t('notice.keepMine')}
          </button>
        </div>
      )}
      {aside.length > 0 && (
        <div className="notice notice-aside" role="status" data-testid="notice-aside">
          <span className="notice-text">{t('notice.aside', { count: aside.length })}</span>
          <ul>
            {aside.map((e, i) => (
              <li key={`${e.at}-${i}`} data-testid="aside-item">
                <span>
                  {t('notice.asideItem', {
                    why: t(`notice.why.${e.why}`),
                    when: when(e),
                    lines: lines(e.text),
                  })}
                </span>
                <button type="button" onClick={() => edits.openAside(i)} data-testid="aside-open">
                  {t('notice.open')}
                </button>
                <button type="button" onClick={() => downloadText(e.text, file)}>
                  {t('notice.download')}
                </button>
                <button
                  type="button"
                  data-testid="aside-discard"
                  onClick={() => {
                    if (globalThis.confirm?.(t('notice.discardConfirm')) ?? true)
                      edits.discardAside(i);
                  }}
                >
                  {t('notice.discard')}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {storage && (
        <div className="notice notice-bad" role="alert" data-testid="notice-storage">
          <span className="notice-text">{t(`notice.storage.${storage}`)}</span>
          <button
            type="button"
            onClick={() => downloadText(manifests, file)}
            data-testid="notice-download"
          >
            {t('notice.downloadEdit')}
          </button>
        </div>
      )}
      {note && (
        <div className="notice" role="status" data-testid="notice-note">
          <span className="notice-text">
            {note.kind === 'path'
              ? t('notice.path', { path: note.path, message: note.message })
              : t(`notice.badLink.${note.reason}`)}
          </span>
          <button type="button" onClick={edits.dismissNote} data-testid="notice-dismiss">
            {t('notice.dismiss')}
          </button>
        </div>
      )}
      {slow && (
        <div className="notice" role="status" data-testid="notice-slow">
          <span className="notice-text">
            {t(slow === 'asked' ? 'notice.slow' : 'notice.waiting')}
          </span>
          {slow === 'asked' && (
            <button type="button" onClick={edits.keepWaiting} data-testid="notice-keep-waiting">
              {t('notice.keepWaiting')}
            </button>
          )}
          <button type="button" onClick={edits.stopRun} data-testid="notice-stop">
            {t('notice.stop')}
          </button>
        </div>
      )}
      {stopped && !slow && (
        <div className="notice" role="status" data-testid="notice-stopped">
          <span className="notice-text">{t('notice.stopped')}</span>
          <button type="button" onClick={edits.runToEnd} data-testid="notice-run-to-end">
            {t('notice.runToEnd')}
          </button>
        </div>
      )}
    </div>
  );
}
