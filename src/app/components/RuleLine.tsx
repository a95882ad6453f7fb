import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * One line of a node's rules (an iptables-save rule, an `nft -f` line): its number, the text,
 * `matched` when this packet's path used it so far, `current` for the step shown (the rules
 * panel scrolls `.rule-line.current` into view).
 */
export function RuleLine({
  line,
  matched,
  current,
  children,
}: {
  line: number;
  matched: boolean;
  current: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <div
      className={`rule-line${matched ? ' matched' : ''}${current ? ' current' : ''}`}
      data-line={line}
      title={matched ? t('rules.matched') : undefined}
    >
      <span className="ln">{line}</span>
      <code>{children}</code>
    </div>
  );
}
