/** Table-level checks iptables-restore and the kernel would make: targets, loops, hook validity. */
import { lookupTarget } from './extensions.ts';
import { compileRule, type CompiledRule } from './compile.ts';
import { BUILTIN_CHAINS, type Diagnostic, type Hook, type Rule, type Table } from './types.ts';

const compiledCache = new WeakMap<Rule, CompiledRule>();

/** The compiled form of a rule of a validated ruleset. */
export function compiledOf(rule: Rule): CompiledRule | undefined {
  return compiledCache.get(rule);
}

/** Where kernel targets may appear (xt_target .table and .hooks in net/netfilter and net/ipv4/netfilter). */
const TARGET_PLACES: Readonly<
  Record<string, { tables?: readonly string[]; hooks?: readonly Hook[] }>
> = {
  DNAT: { tables: ['nat'], hooks: ['PREROUTING', 'OUTPUT'] },
  REDIRECT: { tables: ['nat'], hooks: ['PREROUTING', 'OUTPUT'] },
  SNAT: { tables: ['nat'], hooks: ['POSTROUTING', 'INPUT'] },
  MASQUERADE: { tables: ['nat'], hooks: ['POSTROUTING'] },
  REJECT: { hooks: ['INPUT', 'FORWARD', 'OUTPUT'] },
  NOTRACK: { tables: ['raw'] },
  CT: { tables: ['raw'] },
  TRACE: { tables: ['raw'] },
};

export function validateTable(table: Table, family: 4 | 6): Diagnostic[] {
  const out: Diagnostic[] = [];
  const builtins = new Set<string>(BUILTIN_CHAINS[table.name]);
  const userChains = new Set(
    [...table.chains.values()].filter((c) => !c.builtin).map((c) => c.name),
  );
  for (const chain of table.chains.values()) {
    for (const rule of chain.rules) {
      const t = rule.target;
      if (t && !userChains.has(t.name)) {
        if (builtins.has(t.name)) {
          out.push(
            err(
              rule,
              t.column,
              `cannot jump to built-in chain ${t.name}`,
              'Jump to a user-defined chain instead.',
            ),
          );
          continue;
        }
        if (!lookupTarget(t.name)) {
          out.push(
            err(
              rule,
              t.column,
              `no chain or target named '${t.name}' in table ${table.name}`,
              /^[A-Z0-9-]+$/.test(t.name) && t.name.includes('-')
                ? `Declare the chain with a line ':${t.name} - [0:0]' in *${table.name}.`
                : 'Check the spelling of the target.',
            ),
          );
          continue;
        }
        const place = TARGET_PLACES[t.name];
        if (place?.tables && !place.tables.includes(table.name)) {
          out.push(
            err(
              rule,
              t.column,
              `${t.name} is only valid in the ${place.tables.join('/')} table, not ${table.name}`,
            ),
          );
          continue;
        }
      }
      const res = compileRule(rule, family, userChains);
      if ('diagnostic' in res) out.push(res.diagnostic);
      else compiledCache.set(rule, res.compiled);
    }
  }
  out.push(...checkLoops(table));
  out.push(...checkHooks(table));
  return out;
}

function err(rule: Rule, column: number, message: string, hint?: string): Diagnostic {
  return hint === undefined
    ? { severity: 'error', line: rule.line, column, message }
    : { severity: 'error', line: rule.line, column, message, hint };
}

function jumpsOf(table: Table, chain: string): Rule[] {
  return (table.chains.get(chain)?.rules ?? []).filter(
    (r) => r.target && table.chains.has(r.target.name) && !table.chains.get(r.target.name)?.builtin,
  );
}

/** Jump loops are rejected by the kernel (ELOOP); report the rule that closes the cycle. */
function checkLoops(table: Table): Diagnostic[] {
  const out: Diagnostic[] = [];
  const color = new Map<string, 1 | 2>();
  const path: string[] = [];
  const visit = (name: string): void => {
    color.set(name, 1);
    path.push(name);
    for (const r of jumpsOf(table, name)) {
      const next = (r.target as { name: string }).name;
      const c = color.get(next);
      if (c === 1) {
        const cycle = [...path.slice(path.indexOf(next)), next].join(' -> ');
        out.push(
          err(
            r,
            r.target?.column ?? 1,
            `jump loop: ${cycle}`,
            'Remove one of the jumps so the chains form no cycle.',
          ),
        );
      } else if (c === undefined) visit(next);
    }
    path.pop();
    color.set(name, 2);
  };
  for (const name of table.chains.keys()) if (!color.has(name)) visit(name);
  return out;
}

/** Targets restricted to some hooks must not be reachable from others (xt_check_target hook_mask). */
function checkHooks(table: Table): Diagnostic[] {
  const reach = new Map<string, Set<Hook>>();
  for (const hook of BUILTIN_CHAINS[table.name]) {
    const stack = [hook as string];
    const seen = new Set<string>();
    while (stack.length) {
      const name = stack.pop() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      let set = reach.get(name);
      if (!set) reach.set(name, (set = new Set()));
      set.add(hook);
      for (const r of jumpsOf(table, name)) stack.push((r.target as { name: string }).name);
    }
  }
  const out: Diagnostic[] = [];
  for (const chain of table.chains.values()) {
    const hooks = reach.get(chain.name);
    if (!hooks) continue;
    for (const rule of chain.rules) {
      const t = rule.target;
      const place = t ? TARGET_PLACES[t.name] : undefined;
      if (!t || !place?.hooks) continue;
      const bad = [...hooks].filter((h) => !place.hooks?.includes(h));
      if (bad.length) {
        out.push(
          err(
            rule,
            t.column,
            `${t.name} is only valid in ${place.hooks.join('/')}, but chain ${chain.name} is reached from ${bad.join('/')}`,
            `Move the rule to a chain used only from ${place.hooks.join(' or ')}.`,
          ),
        );
      }
    }
  }
  return out;
}
