import { useTranslation } from 'react-i18next';

/** One swatch drawn with the diagram's own classes, so the legend is what the diagram shows. */
function Swatch({ kind }: { kind: string }) {
  const row = (cls: string, label: string, badge = '') => (
    <g className={`strip ${cls}`}>
      <rect x={1} y={3} width={62} height={15} rx={3} />
      <text className="strip-label" x={6} y={14}>
        {label}
      </text>
      {badge && (
        <text className="strip-badge" x={60} y={14} textAnchor="end">
          {badge}
        </text>
      )}
    </g>
  );
  const content = (() => {
    switch (kind) {
      case 'table':
        return row('row-table present', 'nat');
      case 'absent':
        return row('row-table', 'raw');
      case 'hit':
        return row('row-table present hit', 'filter');
      case 'current':
        return row('row-table present hit current', 'nat');
      case 'badge':
        return row('row-table present hit', 'nat', 'DNAT');
      case 'ct':
        return row('row-conntrack present hit', 'ct', '#1');
      case 'ctbox':
        return <rect className="ct-frame" x={2} y={2} width={60} height={17} rx={4} />;
      case 'reroute':
        return row('row-reroute present', 'reroute?');
      case 'bridge':
        return (
          <g className="bridge bridge-nf">
            <rect className="bridge-box" x={1} y={3} width={62} height={15} rx={3} />
            <text className="bridge-name" x={6} y={14}>
              cni0
            </text>
          </g>
        );
      case 'routing':
        return (
          <g className="route">
            <polygon points="32,2 42,10.5 32,19 22,10.5" />
          </g>
        );
      case 'travelled':
        return <path className="trail-seg request travelled" d="M4,10.5H60" />;
      case 'ahead':
        return <path className="trail-seg request" d="M4,10.5H60" />;
      case 'reply':
        return <path className="trail-seg reply travelled" d="M4,10.5H60" />;
      case 'token':
        return (
          <g className="token">
            <circle className="token-dot" cx={32} cy={10.5} r={7} />
          </g>
        );
      case 'end':
        return (
          <g className="end-mark" transform="translate(32,10.5)">
            <circle r={9} />
            <path d="M-4,-4L4,4M4,-4L-4,4" />
          </g>
        );
      default:
        return null;
    }
  })();
  return (
    <svg className="diagram-svg legend-swatch" width={64} height={21} aria-hidden="true">
      {content}
    </svg>
  );
}

const ITEMS: readonly [string, string][] = [
  ['table', 'legend.table'],
  ['absent', 'legend.tableAbsent'],
  ['hit', 'legend.hit'],
  ['current', 'legend.current'],
  ['badge', 'legend.badge'],
  ['ct', 'legend.ct'],
  ['ctbox', 'legend.ctBox'],
  ['reroute', 'legend.reroute'],
  ['bridge', 'legend.bridge'],
  ['routing', 'legend.routing'],
  ['token', 'legend.token'],
  ['travelled', 'legend.travelled'],
  ['ahead', 'legend.ahead'],
  ['reply', 'legend.reply'],
  ['end', 'legend.end'],
];

/** What the shades, chips, lines and marks of the diagram mean. */
export function Legend({ id }: { id: string }) {
  const { t } = useTranslation();
  return (
    <div
      className="popover legend"
      id={id}
      role="dialog"
      aria-label={t('legend.title')}
      data-testid="legend"
    >
      <h3>{t('legend.title')}</h3>
      <ul>
        {ITEMS.map(([kind, key]) => (
          <li key={kind} data-legend={kind}>
            <Swatch kind={kind} />
            <span>{t(key)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
