/**
 * The dumps given, each with what it was recognised as (the user can change it), what it holds,
 * its errors at their line and column (or JSON path), the rules the lab does not evaluate and the
 * lines it leaves out, each with its line; what the importers say, in the user's language.
 */
import { useTranslation } from 'react-i18next';
import type { DumpCounts, DumpReport, OwnDump, OwnNote } from '../../cluster/own-host/types.ts';
import { useOwn, useOwnStore } from './context.tsx';
import { KindSelect } from './DumpInput.tsx';
import { ownText } from './said.ts';

const COUNTS: readonly (keyof DumpCounts)[] = [
  'tables',
  'chains',
  'rules',
  'interfaces',
  'addresses',
  'routes',
  'sets',
  'entries',
  'services',
  'realServers',
];

function Notes({ notes, title }: { notes: readonly OwnNote[]; title: string }) {
  const { t } = useTranslation();
  if (!notes.length) return null;
  return (
    <details className="own-notes">
      <summary>{title}</summary>
      <ul>
        {notes.map((n, i) => (
          <li key={i}>
            <span className="own-at">{t('own.line', { line: n.line })}</span> <code>{n.text}</code>
            <span className="own-why"> — {ownText(t, n, n.why)}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

function Dump({ dump, report }: { dump: OwnDump; report: DumpReport | undefined }) {
  const { t } = useTranslation();
  const { actions } = useOwnStore();
  const errors = report?.diagnostics ?? [];
  return (
    <li className="own-dump" data-testid="own-dump" data-kind={report?.kind ?? ''}>
      <div className="own-dump-head">
        <strong className="own-dump-name">{dump.name}</strong>
        <span className="own-dump-kind" data-testid="own-dump-kind">
          {report
            ? report.kind
              ? t('own.recognised', { kind: t(`own.kind.${report.kind}`) })
              : t('own.unrecognised')
            : '…'}
        </span>
        <KindSelect
          value={dump.kind}
          onChange={(k) => actions.setDumpKind(dump.id, k)}
          label={`${t('own.kind')}: ${dump.name}`}
        />
        <button
          type="button"
          className="text"
          onClick={() => actions.removeDump(dump.id)}
          aria-label={t('own.remove', { name: dump.name })}
        >
          ✕
        </button>
      </div>
      {report && (
        <p className="own-counts" data-testid="own-counts">
          {COUNTS.filter((k) => report.counts[k] !== undefined)
            .map((k) => t(`own.count.${k}`, { count: report.counts[k] }))
            .join(' · ')}
        </p>
      )}
      {errors.length > 0 && (
        <ul className="own-diagnostics" data-testid="own-diagnostics">
          {errors.map((d, i) => (
            <li key={i} className={`own-${d.severity}`}>
              <span className="own-at">
                {d.line > 0 ? t('own.at', { line: d.line, column: d.column }) : ''}
                {d.field ? ` ${d.field}` : ''}
              </span>{' '}
              {ownText(t, d, d.message)}
            </li>
          ))}
        </ul>
      )}
      {report && (
        <Notes
          notes={report.unsupported}
          title={t('own.unsupported', { count: report.unsupported.length })}
        />
      )}
      {report && (
        <Notes notes={report.ignored} title={t('own.ignored', { count: report.ignored.length })} />
      )}
    </li>
  );
}

const NO_REPORTS: readonly DumpReport[] = [];

export function DumpList() {
  const { t } = useTranslation();
  const dumps = useOwn((s) => s.dumps);
  const reports = useOwn((s) => s.result?.dumps ?? NO_REPORTS);
  const { actions } = useOwnStore();
  return (
    <section className="own-dumps" aria-labelledby="own-dumps-title">
      <h3 id="own-dumps-title">{t('own.dumps')}</h3>
      {dumps.length === 0 ? (
        <p className="own-hint">{t('own.none')}</p>
      ) : (
        <>
          <ul className="own-dump-list">
            {dumps.map((d) => (
              <Dump key={d.id} dump={d} report={reports.find((r) => r.id === d.id)} />
            ))}
          </ul>
          <button type="button" className="text" onClick={() => actions.clear()}>
            {t('own.clear')}
          </button>
        </>
      )}
    </section>
  );
}
