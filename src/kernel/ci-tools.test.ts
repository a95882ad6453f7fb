/**
 * A fresh machine runs `.ci/run`: every program the tests execute must be installed by it (it
 * reads .ci/tools) and listed in the README. This scans the sources for the programs they spawn,
 * including those inside `sh -c` scripts, and fails on a call it cannot read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'app' ? [] : files(p);
    return /\.(ts|mts|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** Programs named by .ci/tools. */
function listed(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(join(root, '.ci/tools'), 'utf8').split('\n')) {
    const [bin, pkg] = line.trim().split(/\s+/);
    if (bin && pkg && !bin.startsWith('#')) out.set(bin, pkg);
  }
  return out;
}

/** Shell builtins: not programs to install. */
const BUILTINS = new Set([
  'shift',
  'cd',
  'set',
  'export',
  'true',
  'false',
  'echo',
  'test',
  '[',
  'exit',
  'read',
  ':',
]);

/** The programs a shell script runs: the first word of each command, and what `exec` runs. */
function scriptPrograms(script: string): string[] {
  const out: string[] = [];
  for (const part of script.split(/&&|\|\||;|\||\$\(|`|\n/)) {
    const words = part
      .trim()
      .split(/\s+/)
      .filter((w) => w && !/^[A-Z_]+=/.test(w));
    let i = 0;
    // `ip netns exec NS cmd`, `stdbuf -oL cmd`, `unshare -n cmd`: the wrapped program runs too.
    while (i < words.length) {
      const w = words[i] as string;
      // `${drop}`: a fragment interpolated by the caller (scanned where it is written).
      if (w.startsWith('${')) {
        i++;
        continue;
      }
      if (w.startsWith('$') || w.startsWith('"$') || w.startsWith('>') || w.startsWith('<')) break;
      if (!BUILTINS.has(w)) out.push(w);
      if (w === 'ip' && words[i + 1] === 'netns' && words[i + 2] === 'exec') i += 4;
      else if (w === 'stdbuf' || w === 'unshare' || w === 'timeout')
        for (i++; i < words.length && (words[i] as string).startsWith('-'); i++);
      else break;
    }
  }
  return out;
}

/** The top-level arguments of the call whose `(` is at `open`, as source text. */
function callArgs(source: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = open + 1;
  for (let i = open; i < source.length; i++) {
    const c = source[i] as string;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        args.push(source.slice(start, i).trim());
        return args.filter((a) => a !== '');
      }
    } else if (c === ',' && depth === 1) {
      args.push(source.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** A string literal's text, or null for anything else (a variable, an expression). */
function literal(arg: string | undefined): string | null {
  const m = /^(['"`])([\s\S]*)\1$/.exec(arg ?? '');
  return m ? (m[2] as string) : null;
}

/** `['-c', script, 'sh']` -> the words, `$VAR` standing for what is not a literal. */
function arrayWords(arg: string | undefined): string[] {
  if (!arg?.startsWith('[')) return [];
  return callArgs(`(${arg.slice(1, -1)})`, 0).map((a) => literal(a) ?? `$VAR:${a}`);
}

/** The string literals of the last `const name = ...;` before `at` in `source`, or null. */
function definedScripts(source: string, name: string, at: number): string[] | null {
  const defs = [
    ...source.slice(0, at).matchAll(new RegExp(`const ${name} = ([\\s\\S]*?);\\n`, 'g')),
  ];
  const def = defs.at(-1);
  if (!def) return null;
  return [...(def[1] as string).matchAll(/'([^']*)'|`([^`]*)`/g)].map((x) => x[1] ?? x[2] ?? '');
}

/** Where each spawning helper takes the program and its arguments. */
const CALLS: Readonly<Record<string, { program: number; argv: number }>> = {
  spawn: { program: 0, argv: 1 },
  spawnSync: { program: 0, argv: 1 },
  execFile: { program: 0, argv: 1 },
  execFileSync: { program: 0, argv: 1 },
  execFileP: { program: 0, argv: 1 },
  execSync: { program: 0, argv: -1 },
  run: { program: 0, argv: 1 },
  nsRun: { program: 1, argv: 2 },
  LineProcess: { program: 2, argv: 3 },
};

/** Parameters and values the helpers pass on: read where the helper is called instead. */
const PASSED_ON = new Set(['cmd', 'process.execPath', 'args[0] as string', 'tool']);

/** Every program spawned by a source file, and the call sites it could not read. */
function spawned(source: string): { programs: string[]; unread: string[] } {
  const programs: string[] = [];
  const unread: string[] = [];
  // `tool` variables pick from string constants: `const tool = ... ? 'ip6tables' : 'iptables'`.
  const tools = [
    ...[...source.matchAll(/const tool = [^;]*/g)].flatMap((m) =>
      [...m[0].matchAll(/'([\w.-]+)'/g)].map((x) => x[1] as string),
    ),
    ...[...source.matchAll(/for \(const tool of \[([^\]]*)\]/g)].flatMap((m) =>
      [...(m[1] as string).matchAll(/'([\w.-]+)'/g)].map((x) => x[1] as string),
    ),
  ];
  programs.push(...tools);
  for (const m of source.matchAll(/(?<![.\w])(\w+)\(/g)) {
    const how = CALLS[m[1] as string];
    if (
      !how ||
      (/function\s*$|new\s*$/.test(source.slice(Math.max(0, (m.index ?? 0) - 9), m.index)) &&
        m[1] !== 'LineProcess')
    )
      continue;
    const args = callArgs(source, (m.index ?? 0) + (m[0] as string).length - 1);
    let program = args[how.program];
    let argv = how.argv >= 0 ? arrayWords(args[how.argv]) : [];
    // run(['ip', 'netns', ...]): the program is the first word of an array.
    if (program?.startsWith('[')) {
      const words = arrayWords(program);
      program = `'${words[0] ?? ''}'`;
      argv = words.slice(1);
    }
    const name = literal(program);
    if (name === null) {
      if (!PASSED_ON.has(program ?? '') && program !== undefined) unread.push(`${m[1]}(${program}`);
      continue;
    }
    const script = argv[1] ?? '';
    if (name === 'sh' && argv[0] === '-c' && script.startsWith('$VAR:')) {
      // A script built in a variable: read the literals it is built from.
      const parts = definedScripts(source, script.slice(5), m.index ?? 0);
      if (parts === null) unread.push(`sh -c ${script.slice(5)}`);
      for (const part of parts ?? []) programs.push(...scriptPrograms(part));
    } else if (name === 'sh' && argv[0] === '-c') programs.push(...scriptPrograms(script));
    else {
      const line = [name, ...argv.map((w) => (w === '$VAR:tool' ? '${tool}' : w))].join(' ');
      // `${tool}-save`: once for each value the variable takes.
      for (const t of line.includes('${tool}') ? tools : [''])
        programs.push(...scriptPrograms(line.replaceAll('${tool}', t)));
    }
  }
  // Shell fragments handed to a helper that runs them after its own command: `'&& iptables-restore'`.
  for (const m of source.matchAll(/'&& ([^']*)'/g))
    programs.push(...scriptPrograms(m[1] as string));
  return { programs, unread };
}

describe('.ci/run installs what the tests execute', () => {
  const sources = [...files('src'), ...files('e2e'), 'playwright.config.ts'].filter(
    (f) => !f.endsWith('ci-tools.test.ts'),
  );
  const found = new Map<string, string>();
  const unread: string[] = [];
  for (const f of sources) {
    const s = spawned(readFileSync(join(root, f), 'utf8'));
    for (const p of s.programs) if (!found.has(p)) found.set(p, relative(root, join(root, f)));
    unread.push(...s.unread.map((u) => `${f}: ${u}`));
  }
  // The browser: playwright.config.ts runs Debian's Chromium.
  if (/\/usr\/bin\/chromium/.test(readFileSync(join(root, 'playwright.config.ts'), 'utf8')))
    found.set('chromium', 'playwright.config.ts');

  it('reads every call site', () => {
    expect(unread).toEqual([]);
  });

  it('finds the programs of the kernel suite (the scan works)', () => {
    for (const p of [
      'ip',
      'iptables-restore',
      'iptables-save',
      'ip6tables-save',
      'nft',
      'xtables-monitor',
      'conntrack',
      'sysctl',
    ])
      expect([...found.keys()]).toContain(p);
  });

  it('every program found is in .ci/tools and the README', () => {
    const tools = listed();
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const node = new Set(['node', process.execPath]);
    for (const [program, where] of found) {
      if (node.has(program)) continue;
      expect(tools.has(program), `${program} (spawned in ${where}) is not in .ci/tools`).toBe(true);
      expect(readme, `${program} is not listed in the README`).toContain(`\`${program}\``);
    }
  });

  it('.ci/run installs from .ci/tools', () => {
    expect(readFileSync(join(root, '.ci/run'), 'utf8')).toContain('done < .ci/tools');
  });

  it('reads commands inside shell scripts', () => {
    expect(scriptPrograms('ip netns exec "$1" conntrack -F 2>/dev/null && shift')).toEqual([
      'ip',
      'conntrack',
    ]);
    expect(scriptPrograms('${drop} iptables-restore')).toEqual(['iptables-restore']);
    expect(scriptPrograms('sysctl -q -w "$@" iptables-restore')).toEqual(['sysctl']);
    expect(scriptPrograms('stdbuf -oL xtables-monitor --trace')).toEqual([
      'stdbuf',
      'xtables-monitor',
    ]);
  });
});
