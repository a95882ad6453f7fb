/**
 * `hookpath/no-cycle`: no import cycle through value imports between source files (type-only
 * imports are erased and cannot form one at run time). The graph of the other files is read from
 * disk once per lint run; the linted file's own imports come from its syntax tree, so an edit
 * that closes a loop is reported at the import that closes it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const IMPORT =
  /^\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm;

/** `{ type A, type B }`: only types, erased. */
const onlyTypes = (clause) => {
  const m = /^\{([^}]*)\}$/.exec(clause.trim());
  if (!m) return false;
  const names = m[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
};

/** Value imports of relative modules in a file's text, resolved to absolute paths. */
export function valueImports(file, text) {
  const out = [];
  for (const m of text.matchAll(IMPORT)) {
    if (m[1] || (m[2] !== undefined && onlyTypes(m[2]))) continue;
    out.push(resolve(dirname(file), m[3] ?? m[4]));
  }
  return out;
}

function sourceFiles(root) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !e.name.includes('.tmp.')) out.push(p);
    }
  };
  walk(root);
  return out;
}

const graphs = new Map();
function diskGraph(root) {
  let g = graphs.get(root);
  if (!g) {
    g = new Map();
    for (const f of sourceFiles(root)) g.set(f, valueImports(f, readFileSync(f, 'utf8')));
    graphs.set(root, g);
  }
  return g;
}

/** A path of value imports from `from` to `to`, or null. */
function pathTo(graph, from, to) {
  const seen = new Set();
  const prev = new Map();
  const stack = [from];
  seen.add(from);
  while (stack.length) {
    const v = stack.pop();
    if (v === to) {
      const path = [v];
      for (let p = prev.get(v); p !== undefined; p = prev.get(p)) path.unshift(p);
      return path;
    }
    for (const w of graph.get(v) ?? []) {
      if (seen.has(w)) continue;
      seen.add(w);
      prev.set(w, v);
      stack.push(w);
    }
  }
  return null;
}

const isValue = (node) => {
  if (node.importKind === 'type' || node.exportKind === 'type') return false;
  if (node.type === 'ImportDeclaration' && node.specifiers.length > 0)
    return node.specifiers.some((s) => s.importKind !== 'type');
  return true;
};

export const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'No import cycles through value imports.' },
    schema: [],
  },
  create(context) {
    const file = resolve(context.filename);
    const root = resolve(context.cwd, 'src');
    if (relative(root, file).startsWith('..')) return {};
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.') || !isValue(node)) return;
      const target = resolve(dirname(file), spec);
      const back = pathTo(diskGraph(root), target, file);
      if (back)
        context.report({
          node,
          message: `Import cycle: ${[file, ...back].map((p) => relative(root, p)).join(' -> ')}. Move what both need into a module below them.`,
        });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
    };
  },
};
