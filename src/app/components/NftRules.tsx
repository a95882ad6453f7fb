import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { nftRows, type NftView } from '../model/nft-view.ts';
import { RuleLine } from './RuleLine.tsx';

/**
 * kube-proxy's nftables table on an nftables-mode node, as the `nft -f` transaction the generator
 * wrote (or a pasted `nft list ruleset`, under its own `title`); the `add rule` lines this packet matched so far highlighted, the current step's one
 * marked (same classes as the iptables rules, so the panel scrolls it into view).
 */
export const NftRules = memo(function NftRules({
  title,
  view,
  matchedKey,
  current,
}: {
  /** The heading: whose ruleset this is. */
  title: string;
  view: NftView;
  /** The matched lines, joined: a string keeps memo's comparison cheap and exact. */
  matchedKey: string;
  current: number;
}) {
  const { t } = useTranslation();
  const matched = new Set(matchedKey ? matchedKey.split(',').map(Number) : []);
  return (
    // Focusable: the panel scrolls by keyboard through the table (it has no buttons of its own).
    <div
      className="rules-table nft-table"
      data-testid="rules-nft"
      role="group"
      tabIndex={0}
      aria-label={title}
    >
      <div className="rules-table-name">{title}</div>
      {nftRows(view).map((r) =>
        'gap' in r ? (
          <div key={`gap-${r.gap}-${view.total}`} className="rule-gap muted">
            {t('rules.nftGap', { count: r.gap })}
          </div>
        ) : (
          <RuleLine
            key={r.line}
            line={r.line}
            matched={matched.has(r.line)}
            current={r.line === current}
          >
            <NftText text={r.text} />
          </RuleLine>
        ),
      )}
    </div>
  );
});

/** `add rule ip kube-proxy` said on every line is dimmed: the chain and its statements are read. */
function NftText({ text }: { text: string }) {
  const m = /^(add (?:rule|element|chain|set|map) \S+ \S+ )(.*)$/.exec(text);
  if (!m) return <>{text}</>;
  return (
    <>
      <span className="nft-verb">{m[1]}</span>
      {m[2]}
    </>
  );
}
