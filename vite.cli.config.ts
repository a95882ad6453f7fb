/**
 * The command line as one prebuilt file, `dist-cli/main.js` (`npm run build` makes it): started
 * through tsx, the CLI spent ~0.7 s compiling TypeScript before doing anything. Everything is
 * bundled (no module resolution at start-up), and `yaml` is its browser build, the one the lab's
 * worker runs: the Node build reads `process.env` once per YAML token.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  resolve: {
    alias: [
      {
        find: /^yaml$/,
        replacement: fileURLToPath(
          new URL('./node_modules/yaml/browser/index.js', import.meta.url),
        ),
      },
    ],
  },
  ssr: { noExternal: true, target: 'node' },
  build: {
    ssr: 'src/cli/main.ts',
    outDir: 'dist-cli',
    emptyOutDir: true,
    target: 'node20',
    minify: true,
    sourcemap: false,
    reportCompressedSize: false,
  },
  publicDir: false,
  logLevel: 'warn',
});
