import {
  memo,
  useCallback,
  useDeferredValue,
  useEffect,
  useMemo,
  useRef,
  useState,
  type CSSProperties,
} from 'react';
import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import {
  hiddenChains,
  shownChains,
  visibleRules,
  type ChainView,
  type TableView,
} from '../model/rules-view.ts';
import { scrollWithin } from './scroll.ts';
import { IpvsView } from './IpvsView.tsx';
import { NftRules } from './NftRules.tsx';
import { RuleLine } from './RuleLine.tsx';

const AUTO = '';
const NO_TABLES: readonly TableView[] = [];

/**
 * The current node's iptables-save, rules this packet matched highlighted, current one in view.
 * `pasted`: the rules are a user's own dumps (Your host), not what kube-proxy wrote.
 */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function RulesPanel({ source = 'scenario' }: { source?: 'scenario' | 'pasted' }) {
  const { t } = useTranslation();
  const rules = useDeferredValue(useLab((s) => s.result?.rules ?? null));
  const nft = useDeferredValue(useLab((s) => s.result?.nftables ?? null));
  // Deferred: the diagram commits first, the long lists follow in a background render.
  const steps = useDeferredValue(useLab(stepsOf));
  const step = useLab((s) => s.doc.step);
  const [pinned, setPinned] = useState(AUTO);
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const body = useRef<HTMLDivElement>(null);
  const nodes = [...new Set([...Object.keys(nft ?? {}), ...Object.keys(rules ?? {})])];
  const allNodes = useLab(
    (s) => s.result?.cluster?.hosts.filter((h) => h.kind === 'node').length ?? 0,
  );

  // Follow the packet: the node of the current step, or the last node it was on.
  let auto = nodes[0] ?? '';
  for (let i = Math.min(step, steps.length - 1); i >= 0; i--) {
    const h = steps[i]?.host;
    if (h && nodes.includes(h)) {
      auto = h;
      break;
    }
  }
  const host = pinned && nodes.includes(pinned) ? pinned : auto;
  const tables: readonly TableView[] = rules?.[host] ?? NO_TABLES;
  const nftView = nft?.[host] ?? null;

  // An nft rule event's line is a line of the nft text; an xtables one, of the iptables-save.
  const { matched, current, nftMatched, nftCurrent } = useMemo(() => {
    const m = new Set<number>();
    const nm = new Set<number>();
    let c = -1;
    let nc = -1;
    for (const s of steps.slice(0, step + 1)) {
      if (s.host !== host || s.event.type !== 'rule') continue;
      const isNft = !!s.event.nft;
      (isNft ? nm : m).add(s.event.line);
      if (s.index === step) {
        if (isNft) nc = s.event.line;
        else c = s.event.line;
      }
    }
    return { matched: m, current: c, nftMatched: nm, nftCurrent: nc };
  }, [steps, step, host]);

  useEffect(() => {
    const line = body.current?.querySelector<HTMLElement>('.rule-line.current');
    if (body.current && line) scrollWithin(body.current, line, 'center');
  }, [current, nftCurrent, host]);

  const toggle = useCallback(
    (key: string, now: boolean) => setOpen((o) => ({ ...o, [key]: !now })),
    [],
  );
  const allOpen = tables.every((tb) =>
    tb.chains.every((c) => !c.count || open[`${tb.name}/${c.name}`] === true),
  );
  const isOpen = (key: string, hasMatch: boolean, count: number) =>
    open[key] ?? (hasMatch || count <= 3);

  return (
    <section className="panel rules-panel" data-testid="rules-panel" aria-label={t('rules.title')}>
      <header className="panel-head">
        <h2>{t('rules.title')}</h2>
        <label>
          <span className="sr-only">{t('rules.node')}</span>
          <select
            value={pinned}
            onChange={(e) => setPinned(e.target.value)}
            data-testid="rules-node"
          >
            <option value={AUTO}>
              {t('rules.node')}: {auto || '—'} ↻
            </option>
            {nodes.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        {tables.length > 0 && (
          <button
            type="button"
            className="text"
            onClick={() =>
              setOpen(
                Object.fromEntries(
                  tables.flatMap((tb) => tb.chains.map((c) => [`${tb.name}/${c.name}`, !allOpen])),
                ),
              )
            }
          >
            {allOpen ? t('rules.collapseAll') : t('rules.expandAll')}
          </button>
        )}
      </header>
      <div className="panel-body rules-body" ref={body}>
        {nodes.length < allNodes && (
          <p className="muted rules-path-only" data-testid="rules-path-only">
            {t('rules.pathOnly')}
          </p>
        )}
        {nftView && (
          <NftRules
            title={t(source === 'pasted' ? 'rules.nftPastedTitle' : 'rules.nftTitle')}
            view={nftView}
            matchedKey={[...nftMatched].sort((x, y) => x - y).join(',')}
            current={nftCurrent}
          />
        )}
        {nftView && tables.length > 0 && (
          <h3 className="rules-host-iptables">
            {t(source === 'pasted' ? 'rules.pastedIptables' : 'rules.hostIptables')}
          </h3>
        )}
        {!tables.length && host && !nftView && <p className="muted">{t('rules.none', { host })}</p>}
        {tables.map((tb) => (
          <div key={tb.name} className="rules-table">
            <div className="rules-table-name">*{tb.name}</div>
            {tb.chains.some((c) => !c.count) && (
              <div
                className="empty-chains muted"
                title={tb.chains
                  .filter((c) => !c.count)
                  .map((c) => c.name)
                  .join(' ')}
              >
                {t('rules.empty', { count: tb.chains.filter((c) => !c.count).length })}:{' '}
                {tb.chains
                  .filter((c) => !c.count)
                  .map((c) => `${c.name}${c.policy !== '-' ? ` (${c.policy})` : ''}`)
                  .join(', ')}
              </div>
            )}
            {shownChains(tb.chains, matched).map((c) => {
              const key = `${tb.name}/${c.name}`;
              const lines = c.rules.filter((r) => matched.has(r.line)).map((r) => r.line);
              return (
                <ChainBlock
                  key={key}
                  id={key}
                  chain={c}
                  matchedKey={lines.join(',')}
                  current={c.rules.some((r) => r.line === current) ? current : -1}
                  open={isOpen(key, lines.length > 0, c.count)}
                  onToggle={toggle}
                />
              );
            })}
            {hiddenChains(tb) > 0 && (
              <div className="muted chain-more">
                {t('rules.moreChains', { count: hiddenChains(tb) })}
              </div>
            )}
          </div>
        ))}
        <IpvsView host={host} />
      </div>
    </section>
  );
}

/** One chain, memoised: a step re-renders only the chains whose highlighted lines changed. */
const ChainBlock = memo(function ChainBlock({
  id,
  chain,
  matchedKey,
  current,
  open,
  onToggle,
}: {
  id: string;
  chain: ChainView;
  /** The matched line numbers, joined: a string keeps memo's comparison cheap and exact. */
  matchedKey: string;
  current: number;
  open: boolean;
  onToggle: (key: string, open: boolean) => void;
}) {
  const { t } = useTranslation();
  const matched = new Set(matchedKey ? matchedKey.split(',').map(Number) : []);
  const rows = open ? visibleRules(chain, matched) : [];
  // The size a chain off screen is given until it is first laid out (lab.css, .chain).
  const estimate = { '--chain-rows': 1 + rows.length } as CSSProperties;
  return (
    <div
      className={`chain${matched.size ? ' has-match' : ''}`}
      data-chain={chain.name}
      style={estimate}
    >
      <button
        type="button"
        className="chain-head"
        aria-expanded={open}
        onClick={() => onToggle(id, open)}
      >
        <span className="caret">{open ? '▾' : '▸'}</span> :{chain.name}{' '}
        <span className="muted">{chain.policy}</span>{' '}
        <span className="muted">· {t('rules.count', { count: chain.count })}</span>
      </button>
      {rows.map((r, i) =>
        'gap' in r ? (
          <div key={`gap-${i}`} className="rule-gap muted">
            {t('rules.gap', { count: r.gap })}
          </div>
        ) : (
          <RuleLine
            key={r.line}
            line={r.line}
            matched={matched.has(r.line)}
            current={r.line === current}
          >
            {r.text}
          </RuleLine>
        ),
      )}
    </div>
  );
});
