import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { pwa } from './src/site/pwa.ts';
import { socialMeta } from './src/site/site-meta.ts';

/**
 * Publishes the file formats' JSON Schemas under `schema/` of the site: scenarios and exercises.
 * The exercise schema refers to the scenario schema by its path in the repository; published,
 * the two sit side by side.
 */
function publishSchemas(): Plugin {
  const schemas = [
    { route: '/schema/scenario.schema.json', file: './src/cluster/scenario.schema.json' },
    { route: '/schema/exercise.schema.json', file: './src/exercise/exercise.schema.json' },
  ].map((s) => ({ ...s, file: fileURLToPath(new URL(s.file, import.meta.url)) }));
  const source = (file: string) =>
    readFileSync(file, 'utf8').replaceAll(
      '../cluster/scenario.schema.json',
      'scenario.schema.json',
    );
  return {
    name: 'hookpath-schemas',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const hit = schemas.find((s) => req.url?.endsWith(s.route));
        if (!hit) return next();
        res.setHeader('content-type', 'application/schema+json');
        res.end(source(hit.file));
      });
    },
    generateBundle() {
      for (const s of schemas)
        this.emitFile({ type: 'asset', fileName: s.route.slice(1), source: source(s.file) });
    },
  };
}

export default defineConfig({
  // Relative base: the same build works on any static host, under any subpath (GitHub Pages
  // serves /<repo>/), and in an iframe; nothing in it names the repository.
  base: './',
  plugins: [react(), publishSchemas(), socialMeta(), pwa()],
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
