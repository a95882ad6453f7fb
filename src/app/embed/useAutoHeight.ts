import { useLayoutEffect, type RefObject } from 'react';

/** The message an embed posts to its parent page; public/embed.js listens for it. */
export const RESIZE_MESSAGE = 'hookpath:resize';

/**
 * Tells the page around the iframe how tall the embed's content is (CSS pixels), on load and on
 * every layout change, so the host (embed.js) can size the iframe and nothing scrolls inside it.
 * The height is posted to any origin: it says nothing private, and the embed cannot know where it
 * is embedded. Nothing the parent posts back is listened to.
 *
 * A ResizeObserver alone is not enough: Chrome does not render a cross-origin iframe that is off
 * screen, so its observers wait until the reader scrolls to it, and the post would then jump
 * under their eyes. Changes to the page outside the diagram's SVG (the answer arriving, a note, a
 * wrapped title) are also caught by a MutationObserver, which runs off screen too; the diagram's
 * own animation is left out (it never changes its size).
 */
export function useAutoHeight(root: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const el = root.current;
    const parent = globalThis.parent;
    if (!el || !parent || parent === globalThis.window) return;
    let last = -1;
    let queued = false;
    const post = () => {
      queued = false;
      const height = Math.ceil(el.getBoundingClientRect().bottom + globalThis.scrollY);
      if (height === last || height <= 0) return;
      last = height;
      parent.postMessage({ type: RESIZE_MESSAGE, height }, '*');
    };
    const soon = () => {
      if (queued) return;
      queued = true;
      queueMicrotask(post);
    };
    post();
    const ro = new ResizeObserver(soon);
    ro.observe(el);
    const inSvg = (n: Node) => !!(n instanceof Element ? n : n.parentElement)?.closest('svg');
    const mo = new MutationObserver((changes) => {
      if (changes.some((c) => !inSvg(c.target))) soon();
    });
    mo.observe(el, { subtree: true, childList: true, characterData: true, attributes: true });
    globalThis.addEventListener('load', soon);
    globalThis.addEventListener('resize', soon);
    return () => {
      ro.disconnect();
      mo.disconnect();
      globalThis.removeEventListener('load', soon);
      globalThis.removeEventListener('resize', soon);
    };
  }, [root]);
}
