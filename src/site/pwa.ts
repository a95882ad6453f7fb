/**
 * The installable, offline-capable site (vite-plugin-pwa, Workbox generateSW). After the first
 * visit everything the lab needs is in the precache: the app, the scenarios (bundled in the JS),
 * the simulation worker, Monaco and its two workers, the schema and the icons. A new deployment
 * waits for the reader to press Reload (src/app/pwa), so a lesson is never swapped mid-step and
 * the app is never silently stale.
 */
import { VitePWA } from 'vite-plugin-pwa';
import type { PluginOption } from 'vite';

/** Theme colours of the page background (src/app/styles/base.css), light and dark. */
export const THEME_COLOR = { light: '#f4f6f9', dark: '#0e1217' } as const;

/** Monaco's editor chunk is ~3.4 MB; Workbox's default limit (2 MiB) would leave it out. */
const MAX_PRECACHED_FILE = 4 * 1024 * 1024;

export function pwa(): PluginOption {
  return VitePWA({
    registerType: 'prompt',
    // The glob below already takes the icons; listing them twice would precache them twice.
    includeManifestIcons: false,
    // Registered by src/app/pwa once the first diagram is drawn, not by an injected script.
    injectRegister: false,
    manifest: {
      id: './',
      name: 'Hookpath: where does a packet go in a Kubernetes cluster?',
      short_name: 'Hookpath',
      description:
        'A browser lab that shows, hop by hop and rule by rule, where a packet goes in a Kubernetes cluster.',
      lang: 'en',
      start_url: './',
      scope: './',
      display: 'standalone',
      background_color: THEME_COLOR.light,
      theme_color: THEME_COLOR.light,
      icons: [
        { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
        {
          src: 'icons/maskable-512.png',
          sizes: '512x512',
          type: 'image/png',
          purpose: 'maskable',
        },
        { src: 'favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
      ],
    },
    workbox: {
      // ttf: Monaco's codicon font (the completion list's icons).
      globPatterns: ['**/*.{html,js,css,json,svg,png,ttf}'],
      // The social card is for crawlers; the page never shows it.
      globIgnores: ['og-image.png'],
      maximumFileSizeToCacheInBytes: MAX_PRECACHED_FILE,
      // Any navigation inside the scope (`?scenario=…`, `?editor=plain`) is the one page.
      navigateFallback: 'index.html',
      navigateFallbackDenylist: [/\/schema\//],
      cleanupOutdatedCaches: true,
    },
  });
}
