import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { pwa } from './src/site/pwa.ts';
import { socialMeta } from './src/site/site-meta.ts';

/** Publishes the scenario format's JSON Schema at `schema/scenario.schema.json` of the site. */
function publishScenarioSchema(): Plugin {
  const file = fileURLToPath(new URL('./src/cluster/scenario.schema.json', import.meta.url));
  const route = '/schema/scenario.schema.json';
  return {
    name: 'hookpath-scenario-schema',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (!req.url?.endsWith(route)) return next();
        res.setHeader('content-type', 'application/schema+json');
        res.end(readFileSync(file));
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: route.slice(1), source: readFileSync(file) });
    },
  };
}

export default defineConfig({
  // Relative base: the same build works on any static host, under any subpath (GitHub Pages
  // serves /<repo>/), and in an iframe; nothing in it names the repository.
  base: './',
  plugins: [react(), publishScenarioSchema(), socialMeta(), pwa()],
  resolve: {
    alias: [
      // monaco-yaml's worker imports monaco's pre-0.5x deep path, which monaco-editor's exports
      // map no longer resolves; point it at the file itself.
      {
        find: /^monaco-editor\/esm\/vs\/(.*)$/,
        replacement: fileURLToPath(
          new URL('./node_modules/monaco-editor/esm/vs/$1', import.meta.url),
        ),
      },
    ],
  },
  worker: { format: 'es' },
  // No source maps: they were 20 of the 25 MB the site weighed, and the site is open source.
  build: { target: 'es2022', sourcemap: false },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    exclude: ['src/**/*.kernel.test.ts', 'node_modules/**'],
    environment: 'node',
    testTimeout: 20000,
  },
});
