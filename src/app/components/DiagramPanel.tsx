import { useCallback, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { isBig, useDeferredWhen } from './defer.ts';
import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { stepDuration } from '../store/controller.ts';
import { buildScene, stripMarks } from '../model/scene.ts';
import { describeDiagram } from '../model/describe.ts';
import { ctShown } from '../model/conntrack.ts';
import { visibleSteps } from '../model/timeline.ts';
import type { Insets } from '../model/camera.ts';
import { createDiagram, type CameraMode, type DiagramInstance } from '../diagram/diagram.ts';
import type { DiagramText } from '../diagram/draw-static.ts';
import { download, exportPng, exportSvg, type ExportInfo } from '../diagram/export.ts';
import { PacketHud, packetLine } from './PacketHud.tsx';
import { usePrefersReducedMotion } from './usePrefersReducedMotion.ts';
import { DiagramTools } from './DiagramTools.tsx';
import { Icon } from './Icon.tsx';
import { ConntrackTable } from './ConntrackTable.tsx';
import { usePrefs } from './prefs.tsx';
import { toneOf, verdictOf } from '../model/verdict.ts';

/** Manual steps glide quickly; playing uses the controller's step time. */
const SEEK_MS = 320;
/** The packet header (top left) and the mini-map (top right) sit in a band above the frame. */
const MINIMAP_BOTTOM = 6 + 48;
/** Narrow panels have no mini-map (diagram.css says the same). */
const MINIMAP_MEDIA = '(min-width: 601px)';
const EDGE = 8;
const DRAWER_W = 430;

/** Keys the lab's shortcut handler forwards to the diagram (see useShortcuts). */
export const DIAGRAM_EVENT = 'hookpath:diagram';
export type DiagramCommand = 'follow' | 'overview' | 'zoom-in' | 'zoom-out' | 'ct' | 'legend';

/**
 * The diagram with its toolbar (the path picker goes in the same row, `lead`), the packet
 * header, the mini-map and the conntrack table drawer. `compact` (embeds): no toolbar row, one
 * camera button on the diagram, and the page keeps the wheel (zoom is Ctrl/⌘ + wheel).
 */
/** The result and the place in it, as one value that changes when any of them does. */
function useLabShown() {
  const result = useLab((s) => s.result);
  const steps = useLab(stepsOf);
  const step = useLab((s) => s.doc.step);
  const run = useLab((s) => s.doc.run);
  return useMemo(() => ({ result, steps, step, run }), [result, steps, step, run]);
}

// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function DiagramPanel({
  lead,
  trail,
  compact = false,
}: {
  lead?: ReactNode;
  trail?: ReactNode;
  compact?: boolean;
}) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const svgRef = useRef<SVGSVGElement>(null);
  const mmRef = useRef<SVGSVGElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const inst = useRef<DiagramInstance | null>(null);
  const drawn = useRef<unknown>(null);
  const scenario = useLab((s) => s.scenario);
  const doc = useLab((s) => s.doc);
  // A big result is drawn after the rest of the page (defer.ts): its arrival is then two tasks,
  // the page's panels and the diagram, not one long one. Result, steps, step and run change
  // together, so the diagram never mixes two results.
  const current = useLabShown();
  const { result, steps, step, run } = useDeferredWhen(current, isBig(current.result?.choices));
  const stale = useLab((s) => s.stale);
  // Stale because the newest run did not finish (time, crash), not because the YAML is wrong.
  const unfinished = useLab((s) => s.failure !== null);
  const playing = useLab((s) => s.playing);
  const everyRule = useLab((s) => !s.hideMisses);
  const duration = useLab((s) =>
    s.playing
      ? stepDuration({ ...s, doc: { ...s.doc, step: Math.max(0, s.doc.step - 1) } }, 550)
      : SEEK_MS,
  );
  const reduced = usePrefersReducedMotion();
  const [mode, setMode] = useState<CameraMode>('follow');
  const [ctOpen, setCtOpen] = useState(false);
  const [legendOpen, setLegendOpen] = useState(false);
  const scene = useMemo(() => (result ? buildScene(result, steps) : null), [result, steps]);
  const marks = useMemo(() => stripMarks(steps, step), [steps, step]);
  const ct = useMemo(() => (scene ? ctShown(scene.layout, steps, step) : []), [scene, steps, step]);
  const descId = useId();
  const description = useMemo(
    () => (scene ? describeDiagram(scene.layout, (k, p) => t(k, p ?? {})) : []),
    [scene, t],
  );
  const ctRef = useRef(ctOpen);
  const compactRef = useRef(compact);

  const text = useMemo<DiagramText>(
    () => ({
      routing: t('diagram.routing'),
      localProcesses: t('diagram.local'),
      noProcess: t('diagram.noProcess'),
      kind: {
        client: t('kind.client'),
        node: t('kind.node'),
        pod: t('kind.pod'),
        router: t('kind.router'),
      },
      rows: {
        conntrack: t('diagram.row.conntrack'),
        confirm: t('diagram.row.confirm'),
        reroute: t('diagram.row.reroute'),
        natCore: t('diagram.row.natCore'),
        ipvs: t('diagram.row.ipvs'),
        // A template the diagram fills in per chain: the placeholders stay.
        nftTitle: t('diagram.row.nftTitle', {
          family: '{family}',
          table: '{table}',
          chain: '{chain}',
          type: '{type}',
          priority: '{priority}',
        }),
      },
      bridge: {
        title: t('diagram.bridge.title', { name: '{name}', address: '{address}' }),
        kind: t('diagram.bridge.kind'),
        nfOn: t('diagram.bridge.nfOn'),
        nfOff: t('diagram.bridge.nfOff'),
        hairpinOn: t('diagram.bridge.hairpinOn'),
        hairpinOff: t('diagram.bridge.hairpinOff'),
      },
      ct: {
        title: t('diagram.ct.title'),
        empty: t('diagram.ct.empty'),
        original: t('diagram.ct.original'),
        reply: t('diagram.ct.reply'),
        unconfirmed: t('diagram.ct.unconfirmed'),
        confirmed: t('diagram.ct.confirmed'),
      },
    }),
    // The language is the dependency: t is stable across changeLanguage.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [t, lang],
  );
  const textRef = useRef(text);

  // Created once; destroyed on unmount. Language changes redraw the texts (setText).
  useEffect(() => {
    const el = svgRef.current;
    if (!el) return;
    const band = (m: CameraMode) => {
      const hud = el.parentElement?.querySelector<HTMLElement>('.packet-hud');
      const hudBottom = hud ? hud.offsetTop + hud.offsetHeight : 36;
      const mm = m === 'follow' && globalThis.matchMedia?.(MINIMAP_MEDIA).matches;
      return Math.max(hudBottom, mm ? MINIMAP_BOTTOM : 0) + 4;
    };
    const insets = (m: CameraMode): Insets => ({
      top: band(m),
      right: EDGE + (ctRef.current ? Math.min(DRAWER_W, el.clientWidth * 0.5) : 0),
      bottom: EDGE,
      left: EDGE,
    });
    const d = createDiagram(el, textRef.current, {
      insets,
      onMode: setMode,
      minimap: mmRef.current,
      pageScrolls: compactRef.current,
    });
    inst.current = d;
    const ro = new ResizeObserver(() => d.resize());
    ro.observe(el);
    return () => {
      ro.disconnect();
      d.destroy();
      inst.current = null;
    };
  }, []);

  useEffect(() => {
    if (textRef.current === text) return;
    textRef.current = text;
    inst.current?.setText(text);
  }, [text]);

  useEffect(() => {
    inst.current?.update({
      scene,
      step,
      run,
      marks,
      ct,
      durationMs: reduced ? 0 : duration,
      stale,
    });
    if (scene && scene !== drawn.current) {
      drawn.current = scene;
      performance.mark('hookpath:drawn');
    }
  }, [scene, step, run, marks, ct, duration, reduced, stale]);

  // Opening or closing the drawer changes the free area: frame again.
  useEffect(() => {
    ctRef.current = ctOpen;
    inst.current?.resize();
  }, [ctOpen]);

  const camera = useCallback((m: 'follow' | 'overview') => {
    inst.current?.setMode(m);
    setMode(m);
  }, []);

  const cur = steps[step];
  const shown = useMemo(() => visibleSteps(steps, everyRule, step), [steps, everyRule, step]);

  const exportStep = async (kind: 'svg' | 'png') => {
    const el = svgRef.current;
    const r = result?.runs[run] ?? result?.runs[0];
    if (!el || !cur || !scenario || !r) return;
    const v = verdictOf(r, result?.cluster ?? null);
    const variant = doc.variant ?? scenario.variants[0]?.id ?? null;
    const variantTitle = scenario.variants.find((x) => x.id === variant)?.title[lang];
    const n = shown.indexOf(step) + 1;
    const info: ExportInfo = {
      title: scenario.title[lang],
      subtitle: [variantTitle, t('export.step', { n, total: shown.length, host: cur.host })]
        .filter(Boolean)
        .join(' · '),
      packet: packetLine(cur, t),
      verdict: t(v.key, v.params ?? {}),
      tone: toneOf(r.outcome.kind),
    };
    const svg = exportSvg(el, info);
    const name = `hookpath-${scenario.id}${variant ? `-${variant}` : ''}-step-${n}`;
    if (kind === 'svg') download(new Blob([svg], { type: 'image/svg+xml' }), `${name}.svg`);
    else download(await exportPng(svg), `${name}.png`);
  };

  // Keyboard: the lab's shortcut handler sends the diagram its keys.
  useEffect(() => {
    const root = panelRef.current?.closest('.lab');
    if (!root) return;
    const on = (e: Event) => {
      const c = (e as CustomEvent<DiagramCommand>).detail;
      if (c === 'follow' || c === 'overview') camera(c);
      else if (c === 'zoom-in') inst.current?.zoomBy(1.25);
      else if (c === 'zoom-out') inst.current?.zoomBy(0.8);
      else if (c === 'ct') setCtOpen((o) => !o);
      else setLegendOpen((o) => !o);
    };
    root.addEventListener(DIAGRAM_EVENT, on);
    return () => root.removeEventListener(DIAGRAM_EVENT, on);
  }, [camera]);

  const ctHosts = scene?.layout.hosts.filter((h) => h.ct).map((h) => h.name) ?? [];
  return (
    <>
      {!compact && (
        <div className="toolbar-row">
          {lead}
          <div className="toolbar-end">
            <DiagramTools
              mode={mode}
              ctOpen={ctOpen}
              legendOpen={legendOpen}
              disabled={!scene}
              onMode={camera}
              onZoom={(k) => inst.current?.zoomBy(k)}
              onCt={() => setCtOpen(!ctOpen)}
              onLegend={setLegendOpen}
              onExport={(k) => void exportStep(k).catch(() => undefined)}
            />
            {trail}
          </div>
        </div>
      )}
      {/* What the drawing's tooltips say, for screen readers (model/describe.ts); outside the
          panel, so that it never takes part in the panel's layout. */}
      <div id={descId} className="sr-only" data-testid="diagram-description">
        {description.map((line, i) => (
          <p key={i}>{line}</p>
        ))}
      </div>
      <div
        ref={panelRef}
        className={`diagram-panel${stale ? ' is-stale' : ''}${playing ? ' is-playing' : ''}`}
        data-testid="diagram"
        data-camera={mode}
      >
        <svg
          ref={svgRef}
          data-testid="diagram-svg"
          role="img"
          aria-label={t('diagram.label')}
          aria-describedby={description.length ? descId : undefined}
          data-step={step}
          data-host={cur?.host ?? ''}
        />
        {!scene && <div className="diagram-empty">{t('diagram.empty')}</div>}
        {stale && (
          <div className="stale-chip" data-testid="diagram-stale">
            {t(unfinished ? 'diagram.staleRun' : 'diagram.stale')}
          </div>
        )}
        {cur && <PacketHud step={cur} />}
        <button
          type="button"
          className="minimap"
          hidden={mode !== 'follow' || !scene}
          onClick={() => camera('overview')}
          aria-label={t('diagram.minimap')}
          title={t('diagram.minimap')}
          data-testid="minimap"
        >
          <svg ref={mmRef} className="minimap-svg" aria-hidden="true" />
        </button>
        {compact && scene && <CameraToggle mode={mode} onMode={camera} />}
        {ctOpen && (
          <ConntrackTable
            hosts={ctHosts}
            focus={cur?.host ?? ''}
            onClose={() => setCtOpen(false)}
          />
        )}
      </div>
    </>
  );
}

/** The embed's one camera control: the whole cluster, or back to following the packet. */
function CameraToggle({
  mode,
  onMode,
}: {
  mode: CameraMode;
  onMode: (m: 'follow' | 'overview') => void;
}) {
  const { t } = useTranslation();
  const follow = mode !== 'follow';
  const label = follow ? t('diagram.follow') : t('diagram.overview');
  return (
    <button
      type="button"
      className="camera-toggle"
      onClick={() => onMode(follow ? 'follow' : 'overview')}
      title={`${label} (${follow ? 'F' : 'O'})`}
      aria-label={label}
      data-testid={follow ? 'camera-follow' : 'camera-overview'}
    >
      <Icon name={follow ? 'follow' : 'fit'} />
      <span className="camera-toggle-text">{label}</span>
    </button>
  );
}
