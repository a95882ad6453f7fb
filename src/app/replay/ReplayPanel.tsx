/**
 * "Replay a real trace": the user pastes (or drops) what `xtables-monitor --trace`, `nft monitor
 * trace`, Retis or pwru printed on a node; the replay worker reads it and aligns the chosen
 * packet with the lab's run, row by row (rule by rule, or hook by hook for pwru). The first disagreement is highlighted and said in one sentence; picking
 * a row moves the lab to that step. The pasted text is kept in this browser (localStorage).
 */
import { useEffect, useMemo, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useLab } from '../components/context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { createBrowserReplayClient, type ReplayClient } from '../worker/replay-client.ts';
import type { Alignment, ReplayView } from '../worker/replay-protocol.ts';
import { realLabel, simLabel, whereOf } from './labels.ts';
import { AlignedTable } from './AlignedTable.tsx';
import { StageRows } from './StageRows.tsx';
import { loadTrace, saveTrace } from './storage.ts';
import '../styles/replay.css';

const DISAGREE = new Set(['verdict', 'rule', 'missing', 'extra']);
/** Typing pauses this long before the trace is read again. */
const DEBOUNCE_MS = 200;

let sharedClient: ReplayClient | null = null;
const client = () => (sharedClient ??= createBrowserReplayClient());

export function ReplayPanel() {
  const { t } = useTranslation();
  const [text, setText] = useState(loadTrace);
  const [packet, setPacket] = useState<string | undefined>(undefined);
  const [view, setView] = useState<ReplayView | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const steps = useLab(stepsOf);
  const { setStep } = useActions();
  const events = useMemo(() => steps.map((s) => s.event), [steps]);

  useEffect(() => {
    const id = setTimeout(() => {
      saveTrace(text);
      void client()
        .replay({ text, events, ...(packet ? { packet } : {}) })
        .then((r) => {
          if (r === null) return;
          if ('error' in r) setFailure(r.error);
          else {
            setFailure(null);
            setView(r);
          }
        });
    }, DEBOUNCE_MS);
    return () => clearTimeout(id);
  }, [text, events, packet]);

  const onDrop = (e: DragEvent) => {
    const file = e.dataTransfer.files[0];
    if (!file) return;
    e.preventDefault();
    void file.text().then(setText);
  };

  const stepOfSeq = (seq: number) => steps.findIndex((s) => s.event.seq === seq);

  return (
    <div className="replay" data-testid="replay-panel">
      <label className="replay-label" htmlFor="replay-input">
        {t('replay.input')}
      </label>
      <div className="replay-input-row">
        <textarea
          id="replay-input"
          className="replay-input"
          data-testid="replay-input"
          value={text}
          spellCheck={false}
          placeholder={t('replay.placeholder')}
          onChange={(e) => setText(e.target.value)}
          onDragOver={(e) => e.preventDefault()}
          onDrop={onDrop}
          rows={3}
        />
        {text && (
          <button type="button" className="text" onClick={() => setText('')}>
            {t('replay.clear')}
          </button>
        )}
      </div>
      {failure && (
        <p className="replay-error" role="alert">
          {t('replay.failed', { message: failure })}
        </p>
      )}
      {view && text.trim() && (
        <ReplayResult
          view={view}
          onPacket={setPacket}
          onPick={(seq) => {
            const i = stepOfSeq(seq);
            if (i >= 0) setStep(i);
          }}
        />
      )}
    </div>
  );
}

/** What kind of comparison this is, and what the tracer left out: said before the rows. */
function Notes({ view }: { view: ReplayView }) {
  const { t } = useTranslation();
  const chosen = view.packets.find((p) => p.id === view.packet);
  const drop = chosen?.drop;
  return (
    <>
      {view.stages && (
        <p className="replay-note" data-testid="replay-coarse">
          {t(view.format === 'pwru' ? 'replay.coarse' : 'replay.coarseRetis')}
        </p>
      )}
      {view.onlyVerdicts && view.alignment && (
        <p className="replay-note">
          {t('replay.onlyVerdicts', { verdicts: view.onlyVerdicts.join(', ') })}
        </p>
      )}
      {drop && view.alignment && (
        <p className="replay-note" data-testid="replay-dropped">
          {drop.reason
            ? t('replay.dropped', { reason: drop.reason, line: drop.line })
            : t('replay.droppedNoReason', { line: drop.line })}
        </p>
      )}
    </>
  );
}

function ReplayResult({
  view,
  onPacket,
  onPick,
}: {
  view: ReplayView;
  onPacket: (id: string) => void;
  onPick: (seq: number) => void;
}) {
  const { t } = useTranslation();
  const format = view.format === 'unknown' ? '' : t(`replay.format.${view.format}`);
  const read = view.stages || view.format === 'pwru' ? 'replay.readStages' : 'replay.read';
  return (
    <>
      <ul className="replay-errors" data-testid="replay-errors">
        {view.errors.slice(0, 20).map((e) => (
          <li key={`${e.line}:${e.column}`}>
            {t('replay.error', {
              line: e.line,
              column: e.column,
              message: t(`replayErrors:${e.code ?? ''}`, { ...e.params, defaultValue: e.message }),
            })}
          </li>
        ))}
      </ul>
      {view.format !== 'unknown' && (
        <p className="replay-read muted" data-testid="replay-read">
          {t(read, { count: view.packets.length, format })}{' '}
          {view.unknown > 0 && t('replay.skipped', { count: view.unknown })}
        </p>
      )}
      {view.format !== 'unknown' && view.packets.length === 0 && <p>{t('replay.noPackets')}</p>}
      {view.packets.length > 1 && (
        <label className="replay-packet">
          {t('replay.packet')}{' '}
          <select
            value={view.packet ?? ''}
            onChange={(e) => onPacket(e.target.value)}
            data-testid="replay-packet"
          >
            {view.packets.map((p) => (
              <option key={p.id} value={p.id}>
                {t(view.stages ? 'replay.packetOptionStages' : 'replay.packetOption', { ...p })}
              </option>
            ))}
          </select>
        </label>
      )}
      <Notes view={view} />
      {view.alignment && <AlignedRows a={view.alignment} onPick={onPick} />}
      {view.stages && <StageRows a={view.stages} onPick={onPick} />}
    </>
  );
}

function Verdict({ a, onShow }: { a: Alignment; onShow: () => void }) {
  const { t } = useTranslation();
  const row = a.first === null ? null : a.rows[a.first];
  if (!row)
    return (
      <p className="replay-verdict agrees" role="status" data-testid="replay-verdict">
        {t('replay.agrees', { same: a.same, host: a.host, packet: a.packetId })}
      </p>
    );
  const side = row.real ?? row.sim;
  const params = {
    row: (a.first ?? 0) + 1,
    where: side ? whereOf(side) : '',
    real: row.status === 'rule' ? String(row.real?.handle ?? '') : (row.real?.verdict ?? ''),
    sim: row.status === 'rule' ? String(row.sim?.handle ?? '') : row.sim ? simLabel(row.sim) : '',
  };
  if (row.status === 'verdict') params.sim = row.sim?.verdict ?? '';
  if (row.status === 'extra' && row.real) params.real = realLabel(row.real);
  return (
    <div className="replay-verdict disagrees" role="status" data-testid="replay-verdict">
      <span>
        {t(`replay.first.${row.status as 'verdict' | 'rule' | 'missing' | 'extra'}`, params)}
      </span>{' '}
      <span className="muted">{t('replay.count', { count: a.disagreements })}</span>{' '}
      <button type="button" className="text" onClick={onShow}>
        {t('replay.show')}
      </button>
    </div>
  );
}

function AlignedRows({ a, onPick }: { a: Alignment; onPick: (seq: number) => void }) {
  const { t } = useTranslation();
  return (
    <AlignedTable
      a={a}
      label={t('replay.rows')}
      className="replay-table"
      verdict={(show) => <Verdict a={a} onShow={show} />}
      rowClass={(r) => `status-${r.status}${DISAGREE.has(r.status) ? ' disagree' : ''}`}
      onPick={onPick}
      cells={(r, seq) => (
        <>
          <td className="side" title={r.real?.text || undefined}>
            {r.real && (
              <>
                <span className="line muted">{r.real.line}:</span> {realLabel(r.real)}
              </>
            )}
          </td>
          <td className="side" title={r.sim?.text || undefined}>
            {r.sim &&
              (seq !== null ? (
                <button
                  type="button"
                  className="text side-pick"
                  onClick={() => onPick(r.sim?.seq ?? seq)}
                  tabIndex={-1}
                >
                  {simLabel(r.sim)}
                </button>
              ) : (
                simLabel(r.sim)
              ))}
          </td>
          <td className="status">{t(`replay.status.${r.status}`)}</td>
        </>
      )}
    />
  );
}
