/// <reference types="vite-plugin-pwa/client" />
/**
 * Registers the site's service worker (built by vite-plugin-pwa, src/site/pwa.ts) and reports a
 * new version to the update prompt. In `vite dev` the plugin's virtual module is a no-op, so
 * nothing is cached while developing.
 */
import { registerSW } from 'virtual:pwa-register';
import { createUpdates, type Updates } from './updates.ts';

/** A workshop keeps one tab open for hours: look for a new deployment this often. */
const CHECK_EVERY_MS = 60 * 60 * 1000;

export function registerServiceWorker(): Updates {
  let skipWaiting: () => Promise<void> = async () => {};
  const updates = createUpdates(() => {
    // A page the service worker controls switches once the new worker takes over (the plugin
    // reloads it then). A page loaded before any worker existed (the first visit) runs the
    // network's old files, and the new worker may already be active: a plain reload is the
    // update.
    if (navigator.serviceWorker?.controller) void skipWaiting();
    else location.reload();
  });
  // After the page has loaded: workbox-window and the precache download never compete with the
  // first diagram.
  const register = () => {
    skipWaiting = registerSW({
      immediate: true,
      onNeedRefresh: () => updates.markWaiting(),
      onRegisteredSW(_url, registration) {
        if (!registration) return;
        setInterval(() => {
          if (navigator.onLine) void registration.update().catch(() => {});
        }, CHECK_EVERY_MS);
      },
    });
  };
  if (document.readyState === 'complete') register();
  else addEventListener('load', register, { once: true });
  return updates;
}
