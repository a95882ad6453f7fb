/**
 * The diagram's camera: d3-zoom for the user's wheel, drag and pinch, and programmatic glides to
 * the frames model/camera.ts computes. Any move the user makes suspends following; the panel's
 * Follow control resumes it.
 */
import type { Selection } from 'd3-selection';
import 'd3-transition';
import { zoom, zoomIdentity, type D3ZoomEvent, type ZoomBehavior } from 'd3-zoom';
import type { Transform } from '../model/camera.ts';

export type CameraMode = 'follow' | 'overview' | 'free';

export interface Camera {
  /** Moves to `t`, gliding for `ms` (0 jumps: reduced motion, first frame, resize). */
  aim(t: Transform, ms: number): void;
  current(): Transform;
  /** The user zoomed with a button or a key: like a wheel, it stops following. */
  zoomBy(k: number): void;
  destroy(): void;
}

/**
 * In a page that scrolls around the diagram (an embed in a blog post), the wheel and one finger
 * scroll the page; zooming takes Ctrl/⌘ + wheel or two fingers, as embedded maps do.
 */
export function pageGestures(e: Event): boolean {
  if (e.type === 'wheel') return (e as WheelEvent).ctrlKey || (e as WheelEvent).metaKey;
  if (e.type.startsWith('touch')) return (e as TouchEvent).touches.length > 1;
  return !(e as MouseEvent).ctrlKey && !(e as MouseEvent).button;
}

export function createCamera(
  svg: Selection<SVGSVGElement, unknown, null, undefined>,
  viewport: Selection<SVGGElement, unknown, null, undefined>,
  size: () => { w: number; h: number },
  onMove: (t: Transform, byUser: boolean) => void,
  opts: { readonly pageScrolls?: boolean } = {},
): Camera {
  let now: Transform = { k: 1, x: 0, y: 0 };
  const zb: ZoomBehavior<SVGSVGElement, unknown> = zoom<SVGSVGElement, unknown>()
    .scaleExtent([0.15, 4])
    // Explicit extent: d3's default reads SVG length objects some DOMs (jsdom) do not have.
    .extent(() => {
      const s = size();
      return [
        [0, 0],
        [s.w, s.h],
      ];
    })
    .on('zoom', (e: D3ZoomEvent<SVGSVGElement, unknown>) => {
      now = { k: e.transform.k, x: e.transform.x, y: e.transform.y };
      viewport.attr('transform', e.transform.toString());
      onMove(now, e.sourceEvent != null);
    });
  if (opts.pageScrolls) zb.filter(pageGestures);
  svg.call(zb).on('dblclick.zoom', null);
  const toD3 = (t: Transform) => zoomIdentity.translate(t.x, t.y).scale(t.k);
  return {
    aim(t, ms) {
      svg.interrupt('camera');
      if (ms > 0) svg.transition('camera').duration(ms).call(zb.transform, toD3(t));
      else svg.call(zb.transform, toD3(t));
    },
    current: () => now,
    zoomBy(k) {
      svg.interrupt('camera');
      svg.transition('camera').duration(200).call(zb.scaleBy, k);
      onMove(now, true);
    },
    destroy() {
      svg.interrupt('camera');
      svg.on('.zoom', null);
    },
  };
}
