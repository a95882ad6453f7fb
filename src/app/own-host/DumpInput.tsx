/**
 * Where dumps come in: files dropped on the zone or chosen with the file input (read with the
 * File API, in this browser), or text pasted in the box, with its kind recognised or picked.
 */
import { useId, useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { OwnDump } from '../../cluster/own-host/types.ts';
import { DUMP_KINDS } from '../worker/own-host-protocol.ts';
import { useOwnStore } from './context.tsx';

/** The largest file read: kube-proxy with 10,000 Services writes about 20 MB of iptables-save. */
const MAX_BYTES = 32 * 1024 * 1024;

export function KindSelect({
  value,
  onChange,
  label,
}: {
  value: OwnDump['kind'];
  onChange: (k: OwnDump['kind']) => void;
  label: string;
}) {
  const { t } = useTranslation();
  return (
    <select
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.target.value as OwnDump['kind'])}
    >
      <option value="auto">{t('own.kind.auto')}</option>
      {DUMP_KINDS.map((k) => (
        <option key={k} value={k}>
          {t(`own.kind.${k}`)}
        </option>
      ))}
    </select>
  );
}

// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function DumpInput() {
  const { t } = useTranslation();
  const own = useOwnStore();
  const { actions } = own;
  const [text, setText] = useState('');
  const [kind, setKind] = useState<OwnDump['kind']>('auto');
  const [over, setOver] = useState(false);
  const [tooBig, setTooBig] = useState<string | null>(null);
  const file = useRef<HTMLInputElement>(null);
  const pasteId = useId();
  const readFiles = (files: FileList | null) => {
    setTooBig(null);
    for (const f of files ? [...files] : []) {
      if (f.size > MAX_BYTES) {
        setTooBig(f.name);
        continue;
      }
      void f.text().then((body) => actions.addDump(f.name, body, 'auto'));
    }
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    readFiles(e.dataTransfer.files);
  };
  const add = () => {
    if (!text.trim()) return;
    actions.addDump(t('own.pasted', { n: own.getState().dumps.length + 1 }), text, kind);
    setText('');
    setKind('auto');
  };
  return (
    <div className="own-input">
      <div
        className={`own-drop${over ? ' is-over' : ''}`}
        data-testid="own-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <span>{t('own.drop')}</span>{' '}
        <button type="button" className="text" onClick={() => file.current?.click()}>
          {t('own.choose')}
        </button>
        <input
          ref={file}
          type="file"
          multiple
          hidden
          data-testid="own-file"
          onChange={(e) => {
            readFiles(e.target.files);
            e.target.value = '';
          }}
        />
      </div>
      {tooBig && (
        <p className="own-error" role="alert">
          {tooBig}: &gt; 32 MB
        </p>
      )}
      <label htmlFor={pasteId} className="own-label">
        {t('own.paste')}
      </label>
      <textarea
        id={pasteId}
        className="own-paste"
        data-testid="own-paste"
        rows={5}
        spellCheck={false}
        placeholder={t('own.pastePlaceholder')}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <div className="own-row">
        <KindSelect value={kind} onChange={setKind} label={t('own.kind')} />
        <button
          type="button"
          className="primary"
          data-testid="own-add"
          onClick={add}
          disabled={!text.trim()}
        >
          {t('own.add')}
        </button>
      </div>
    </div>
  );
}
