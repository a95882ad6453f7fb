import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { CameraMode } from '../diagram/diagram.ts';
import { Icon, type IconName } from './Icon.tsx';
import { Legend } from './Legend.tsx';

export interface DiagramToolsProps {
  readonly mode: CameraMode;
  readonly ctOpen: boolean;
  readonly legendOpen: boolean;
  readonly disabled: boolean;
  onMode(mode: 'follow' | 'overview'): void;
  onZoom(k: number): void;
  onCt(): void;
  onLegend(open: boolean): void;
  onExport(kind: 'svg' | 'png'): void;
}

/** The diagram's own toolbar: camera, zoom, conntrack table, legend, export; every one by Tab. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function DiagramTools(p: DiagramToolsProps) {
  const { t } = useTranslation();
  const legendId = useId();
  const exportId = useId();
  const [exportOpen, setExportOpen] = useState(false);
  const buttons: ToolButtonProps[] = [
    {
      icon: 'follow',
      label: t('diagram.follow'),
      text: t('diagram.follow'),
      shortcut: 'F',
      pressed: p.mode === 'follow',
      onClick: () => p.onMode('follow'),
      testid: 'camera-follow',
    },
    {
      icon: 'fit',
      label: t('diagram.overview'),
      shortcut: 'O',
      pressed: p.mode === 'overview',
      onClick: () => p.onMode('overview'),
      testid: 'camera-overview',
    },
    {
      icon: 'minus',
      label: t('diagram.zoomOut'),
      shortcut: '−',
      onClick: () => p.onZoom(0.8),
      testid: 'zoom-out',
    },
    {
      icon: 'plus',
      label: t('diagram.zoomIn'),
      shortcut: '+',
      onClick: () => p.onZoom(1.25),
      testid: 'zoom-in',
    },
    {
      icon: 'table',
      label: t('cttable.open'),
      shortcut: 'C',
      pressed: p.ctOpen,
      onClick: p.onCt,
      testid: 'ct-table-toggle',
    },
  ];
  return (
    <div className="diagram-tools" role="toolbar" aria-label={t('diagram.tools')}>
      {buttons.map((b) => (
        <ToolButton key={b.testid} {...b} />
      ))}
      <Popover
        open={p.legendOpen}
        setOpen={p.onLegend}
        id={legendId}
        button={
          <ToolButton
            icon="legend"
            label={t('legend.open')}
            shortcut="L"
            expanded={p.legendOpen}
            controls={legendId}
            onClick={() => p.onLegend(!p.legendOpen)}
            testid="legend-toggle"
          />
        }
      >
        <Legend id={legendId} />
      </Popover>
      <Popover
        open={exportOpen}
        setOpen={setExportOpen}
        id={exportId}
        button={
          <ToolButton
            icon="download"
            label={t('export.open')}
            expanded={exportOpen}
            controls={exportId}
            disabled={p.disabled}
            onClick={() => setExportOpen(!exportOpen)}
            testid="export-toggle"
          />
        }
      >
        <div className="popover export-menu" id={exportId} data-testid="export-menu">
          {(['svg', 'png'] as const).map((k) => (
            <button
              key={k}
              type="button"
              onClick={() => {
                setExportOpen(false);
                p.onExport(k);
              }}
              data-testid={`export-${k}`}
            >
              <Icon name="download" /> {t(k === 'svg' ? 'export.svg' : 'export.png')}
            </button>
          ))}
        </div>
      </Popover>
    </div>
  );
}

/** A button with a popover under it; Escape or a click elsewhere closes it. */
function Popover({
  open,
  setOpen,
  id,
  button,
  children,
}: {
  open: boolean;
  setOpen(open: boolean): void;
  id: string;
  button: ReactNode;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const key = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      ref.current?.querySelector<HTMLButtonElement>('button')?.focus({ preventScroll: true });
    };
    const click = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('keydown', key);
    window.addEventListener('pointerdown', click);
    return () => {
      window.removeEventListener('keydown', key);
      window.removeEventListener('pointerdown', click);
    };
  }, [open, setOpen]);
  return (
    <div className="tool-popover" ref={ref} data-for={id}>
      {button}
      {open && children}
    </div>
  );
}

interface ToolButtonProps {
  readonly icon: IconName;
  readonly label: string;
  readonly shortcut?: string;
  readonly pressed?: boolean;
  readonly expanded?: boolean;
  readonly controls?: string;
  readonly disabled?: boolean;
  readonly text?: string;
  readonly testid: string;
  onClick(): void;
}

function ToolButton(props: ToolButtonProps) {
  return (
    <button
      type="button"
      className={`icon tool${props.pressed ? ' on' : ''}`}
      title={props.shortcut ? `${props.label} (${props.shortcut})` : props.label}
      aria-label={props.label}
      aria-pressed={props.pressed}
      aria-expanded={props.expanded}
      aria-controls={props.expanded ? props.controls : undefined}
      disabled={props.disabled}
      onClick={props.onClick}
      data-testid={props.testid}
    >
      <Icon name={props.icon} />
      {props.text && <span className="tool-text">{props.text}</span>}
    </button>
  );
}
