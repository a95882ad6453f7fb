/// <reference types="vite-plugin-pwa/client" />
/**
 * Registers the site's service worker (built by vite-plugin-pwa, src/site/pwa.ts) and reports a
 * waiting new version to the update prompt. In `vite dev` the plugin's virtual module is a no-op,
 * so nothing is cached while developing.
 */
import { registerSW } from 'virtual:pwa-register';
import { createUpdates, type Updates } from './updates.ts';

/** A workshop keeps one tab open for hours: look for a new deployment this often. */
const CHECK_EVERY_MS = 60 * 60 * 1000;

export function registerServiceWorker(): Updates {
  let activate: () => Promise<void> = async () => {};
  const updates = createUpdates(() => activate());
  activate = registerSW({
    onNeedRefresh: () => updates.markWaiting(),
    onRegisteredSW(_url, registration) {
      if (!registration) return;
      setInterval(() => {
        if (navigator.onLine) void registration.update().catch(() => {});
      }, CHECK_EVERY_MS);
    },
  });
  return updates;
}
