import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { stepDuration } from '../store/controller.ts';
import { buildScene, stripMarks } from '../model/scene.ts';
import { createDiagram, type DiagramInstance } from '../diagram/diagram.ts';
import { PacketHud } from './PacketHud.tsx';
import { usePrefersReducedMotion } from './usePrefersReducedMotion.ts';
import { Icon } from './Icon.tsx';

/** Manual steps glide quickly; playing uses the controller's step time. */
const SEEK_MS = 320;

export function DiagramPanel() {
  const { t, i18n } = useTranslation();
  const svgRef = useRef<SVGSVGElement>(null);
  const inst = useRef<DiagramInstance | null>(null);
  const drawn = useRef<unknown>(null);
  const result = useLab((s) => s.result);
  const steps = useLab(stepsOf);
  const step = useLab((s) => s.doc.step);
  const run = useLab((s) => s.doc.run);
  const stale = useLab((s) => s.stale);
  const playing = useLab((s) => s.playing);
  const duration = useLab((s) =>
    s.playing
      ? stepDuration({ ...s, doc: { ...s.doc, step: Math.max(0, s.doc.step - 1) } }, 550)
      : SEEK_MS,
  );
  const reduced = usePrefersReducedMotion();
  const scene = useMemo(() => (result ? buildScene(result, steps) : null), [result, steps]);
  const marks = useMemo(() => stripMarks(steps, step), [steps, step]);

  // Created once per language (labels are drawn into the SVG); destroyed on unmount.
  useEffect(() => {
    const el = svgRef.current;
    if (!el) return;
    const d = createDiagram(el, {
      routing: t('diagram.routing'),
      localProcesses: t('diagram.local'),
      noProcess: t('diagram.noProcess'),
      kind: {
        client: t('kind.client'),
        node: t('kind.node'),
        pod: t('kind.pod'),
        router: t('kind.router'),
      },
    });
    inst.current = d;
    const ro = new ResizeObserver(() => d.fit());
    ro.observe(el);
    return () => {
      ro.disconnect();
      d.destroy();
      inst.current = null;
    };
  }, [t, i18n.language]);

  useEffect(() => {
    inst.current?.update({ scene, step, run, marks, durationMs: reduced ? 0 : duration, stale });
    if (scene && scene !== drawn.current) {
      drawn.current = scene;
      performance.mark('hookpath:drawn');
    }
  }, [scene, step, run, marks, duration, reduced, stale, t]);

  const cur = steps[step];
  return (
    <div
      className={`diagram-panel${stale ? ' is-stale' : ''}${playing ? ' is-playing' : ''}`}
      data-testid="diagram"
    >
      <svg
        ref={svgRef}
        data-testid="diagram-svg"
        role="img"
        aria-label={t('diagram.label')}
        data-step={step}
        data-host={cur?.host ?? ''}
      />
      {!scene && <div className="diagram-empty">{t('diagram.empty')}</div>}
      {stale && (
        <div className="stale-chip" data-testid="diagram-stale">
          {t('diagram.stale')}
        </div>
      )}
      {cur && <PacketHud step={cur} />}
      <div className="diagram-zoom" role="group">
        <button
          type="button"
          title={t('diagram.zoomIn')}
          aria-label={t('diagram.zoomIn')}
          onClick={() => inst.current?.zoomBy(1.25)}
        >
          <Icon name="plus" />
        </button>
        <button
          type="button"
          title={t('diagram.zoomOut')}
          aria-label={t('diagram.zoomOut')}
          onClick={() => inst.current?.zoomBy(0.8)}
        >
          <Icon name="minus" />
        </button>
        <button
          type="button"
          title={t('diagram.fit')}
          aria-label={t('diagram.fit')}
          onClick={() => inst.current?.fit()}
        >
          <Icon name="fit" />
        </button>
      </div>
    </div>
  );
}
