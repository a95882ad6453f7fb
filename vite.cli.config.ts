/**
 * The command line as one prebuilt file, `dist-cli/main.js` (`npm run build` makes it): started
 * through tsx, the CLI spent ~0.7 s compiling TypeScript before doing anything. Everything is
 * bundled (no module resolution at start-up), and `yaml` is its browser build, the one the lab's
 * worker runs: the Node build reads `process.env` once per YAML token.
 *
 * Beside it, `dist-cli/sources.json` lists every file of this repository the bundle was made from
 * with a hash of its content; `src/cli/bin.mjs` runs the bundle only while they all still match.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { ALSO_HASHED, hashFiles, sha1 } from './src/cli/bundle-fresh.mjs';
import { validatorModule } from './src/cli/precompile-schemas.mjs';

const root = fileURLToPath(new URL('./', import.meta.url));

function listSources(): Plugin {
  let sources: string[] = [];
  return {
    name: 'hookpath-cli-sources',
    generateBundle() {
      sources = [...this.getModuleIds()]
        .filter(
          (id) => !id.startsWith('\0') && id.startsWith(root) && !id.includes('/node_modules/'),
        )
        .map((id) => relative(root, id.split('?')[0] ?? id));
    },
    writeBundle(options, bundle) {
      // Only the CLI's own bundle (the bench builds other entries with this config).
      const main = Object.values(bundle).find(
        (c) => c.type === 'chunk' && c.facadeModuleId === `${root}src/cli/main.ts`,
      );
      if (!main || main.fileName !== 'main.js') return;
      const dir = options.dir ?? 'dist-cli';
      const files = hashFiles(root, [...new Set([...sources, ...ALSO_HASHED])].sort());
      const bundled = sha1(readFileSync(`${dir}/main.js`));
      // The chunks main.js loads (the commands, `help`'s text): each must be this build's too.
      const chunks = Object.fromEntries(
        Object.values(bundle)
          .filter((c) => c.type === 'chunk' && c.fileName !== 'main.js')
          .map((c) => [c.fileName, sha1(readFileSync(`${dir}/${c.fileName}`))]),
      );
      writeFileSync(
        `${dir}/sources.json`,
        `${JSON.stringify({ bundle: bundled, chunks, files }, null, 1)}\n`,
      );
    },
  };
}

/** The schemas whose validators the CLI gets compiled (see src/cluster/precompiled-schemas.ts). */
const SCHEMAS = ['src/cluster/scenario.schema.json', 'src/cli/host.schema.json'];
const VALIDATOR = '\0hookpath-validator:';

function precompileSchemas(): Plugin {
  return {
    name: 'hookpath-precompiled-schemas',
    resolveId(id) {
      return id.startsWith(VALIDATOR) ? id : null;
    },
    load(id) {
      if (id.startsWith(VALIDATOR)) {
        const file = SCHEMAS[Number(id.slice(VALIDATOR.length))] as string;
        return validatorModule(JSON.parse(readFileSync(`${root}${file}`, 'utf8')));
      }
      if (id !== `${root}src/cluster/precompiled-schemas.ts`) return null;
      const lines = SCHEMAS.flatMap((f, i) => [
        `import s${i} from ${JSON.stringify(`${root}${f}`)};`,
        `import v${i} from ${JSON.stringify(`${VALIDATOR}${i}`)};`,
      ]);
      const pairs = SCHEMAS.map((_, i) => `[s${i}, v${i}]`).join(', ');
      return `${lines.join('\n')}\nexport const precompiled = new Map([${pairs}]);\n`;
    },
  };
}

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
  plugins: [listSources(), precompileSchemas()],
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
