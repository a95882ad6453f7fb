// Build-time JSON Schema validators for the prebuilt CLI (vite.cli.config.ts): Ajv's standalone
// code for a schema, so `hookpath run` does not compile the scenario schema at every start
// (~0.2 s of CPU, a tenth of a 5,000-Service run). The options are schema-check.ts's own, so the
// errors (and the messages made of them) are the runtime compiler's; a test compares them.
// https://ajv.js.org/standalone.html
import Ajv from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';

/** The options lazyValidator (src/cluster/schema-check.ts) compiles with. */
export const AJV_OPTIONS = { allErrors: true, strict: false, verbose: true };

const toCode = standalone.default ?? standalone;

/**
 * An ES module whose default export validates `schema`. Ajv's standalone code requires its
 * runtime helpers (`require("ajv/dist/runtime/equal")`); they become imports here.
 */
export function validatorModule(schema) {
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, esm: true } });
  const code = toCode(ajv, ajv.compile(schema));
  const imports = [];
  const body = code.replace(/require\("(ajv\/dist\/runtime\/[\w-]+)"\)/g, (_, path) => {
    let i = imports.indexOf(path);
    if (i < 0) i = imports.push(path) - 1;
    return `__ajvRuntime${i}`;
  });
  // A CommonJS module marked __esModule: a bundler's namespace has its exports, Node's has them
  // under `default`; either way `require(...)` stands for the exports object.
  const head = imports
    .map(
      (p, i) =>
        `import * as __ajvNs${i} from "${p}.js";\nconst __ajvRuntime${i} = __ajvNs${i}.default?.default ? __ajvNs${i}.default : __ajvNs${i};`,
    )
    .join('\n');
  return `${head}\n${body}`;
}
