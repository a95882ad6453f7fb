import { useLayoutEffect, type RefObject } from 'react';

/** The message an embed posts to its parent page; public/embed.js listens for it. */
export const RESIZE_MESSAGE = 'hookpath:resize';

/**
 * Tells the page around the iframe how tall the embed's content is (CSS pixels), on load and on
 * every layout change, so the host (embed.js) can size the iframe and nothing scrolls inside it.
 * The height is posted to any origin: it says nothing private, and the embed cannot know where it
 * is embedded. Nothing the parent posts back is listened to.
 */
export function useAutoHeight(root: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const el = root.current;
    const parent = globalThis.parent;
    if (!el || !parent || parent === globalThis.window) return;
    let last = -1;
    const post = () => {
      const height = Math.ceil(el.getBoundingClientRect().bottom + globalThis.scrollY);
      if (height === last || height <= 0) return;
      last = height;
      parent.postMessage({ type: RESIZE_MESSAGE, height }, '*');
    };
    post();
    const ro = new ResizeObserver(post);
    ro.observe(el);
    globalThis.addEventListener('load', post);
    return () => {
      ro.disconnect();
      globalThis.removeEventListener('load', post);
    };
  }, [root]);
}
