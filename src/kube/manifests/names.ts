/**
 * Names as Kubernetes validates them (k8s.io/apimachinery/pkg/util/validation), with a message
 * that says which character breaks which rule: an emoji, a right-to-left mark or a zero-width
 * space in a name look harmless, or are invisible, when the name is just quoted back.
 */

export type NameRule = 'dns1123-label' | 'dns1123-subdomain' | 'dns1035-label' | 'port-name';

interface RuleSpec {
  readonly title: string;
  readonly max: number;
  readonly allowed: RegExp;
  readonly text: string;
  readonly firstLetter?: boolean;
}

const RULES: Readonly<Record<NameRule, RuleSpec>> = {
  'dns1123-label': {
    title: 'an RFC 1123 DNS label',
    max: 63,
    allowed: /[a-z0-9-]/,
    text: "lowercase letters a-z, digits 0-9 and '-', starting and ending with a letter or digit, at most 63 characters",
  },
  'dns1123-subdomain': {
    title: 'an RFC 1123 DNS subdomain',
    max: 253,
    allowed: /[a-z0-9.-]/,
    text: "lowercase letters a-z, digits 0-9, '-' and '.', starting and ending with a letter or digit, at most 253 characters",
  },
  'dns1035-label': {
    title: 'an RFC 1035 DNS label',
    max: 63,
    allowed: /[a-z0-9-]/,
    firstLetter: true,
    text: "lowercase letters a-z, digits 0-9 and '-', starting with a letter and ending with a letter or digit, at most 63 characters",
  },
  'port-name': {
    title: 'an IANA service name',
    max: 15,
    allowed: /[a-z0-9-]/,
    text: "lowercase letters a-z, digits 0-9 and '-', with at least one letter, starting and ending with a letter or digit, at most 15 characters",
  },
};

/** Exactly the names each rule accepts, ASCII all (the lengths are the rules' maxima). */
const VALID: Readonly<Record<NameRule, RegExp>> = {
  'dns1123-label': /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/,
  'dns1123-subdomain':
    /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/,
  'dns1035-label': /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/,
  'port-name': /^[a-z0-9](?:[-a-z0-9]{0,13}[a-z0-9])?$/,
};
/** What a port name needs beyond its characters: a letter, and no `--`. */
const PORT_NAME_OK = (v: string): boolean => /[a-z]/.test(v) && !v.includes('--');

/** Names of characters that cannot be seen or that reorder text, by code point. */
const INVISIBLE: Readonly<Record<number, string>> = {
  0x00a0: 'NO-BREAK SPACE',
  0x00ad: 'SOFT HYPHEN',
  0x034f: 'COMBINING GRAPHEME JOINER',
  0x061c: 'ARABIC LETTER MARK',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE (byte order mark)',
};

/** Characters that would hide or reorder text when printed: controls, format and separators. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0\u180e]|\u034f/u;

function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The text with invisible and direction-changing characters written as \u{...} escapes. */
export function visible(s: string, max = 80): string {
  let out = '';
  for (const ch of s) {
    out += HIDDEN.test(ch) ? `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}` : ch;
    if (out.length > max) return `${out.slice(0, max)}…`;
  }
  return out;
}

/** How a character is named in a message: `'🙂' (U+1F642)`, `an invisible ZERO WIDTH SPACE (U+200B)`. */
export function describeChar(ch: string): string {
  const known = INVISIBLE[ch.codePointAt(0) ?? 0];
  if (known) return `an invisible ${known} (${codePoint(ch)})`;
  if (HIDDEN.test(ch)) return `an invisible control character (${codePoint(ch)})`;
  if (/\s/u.test(ch)) return `a space (${codePoint(ch)})`;
  return `'${ch}' (${codePoint(ch)})`;
}

/**
 * Why `value` is not a valid name under `rule`, or null when it is. `what` names the field:
 * "a node name", "a Service name".
 */
export function nameProblem(value: string, rule: NameRule, what: string): string | null {
  // Valid names (nearly all of them) are told by one expression, without building a message.
  if (VALID[rule].test(value) && (rule !== 'port-name' || PORT_NAME_OK(value))) return null;
  const r = RULES[rule];
  const chars = [...value];
  const shown = `'${visible(value)}'`;
  const tail = `${what} is ${r.title}: ${r.text}`;
  if (chars.length === 0) return `the name is empty; ${tail}`;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (r.allowed.test(ch)) continue;
    const upper = /[A-Z]/.test(ch) ? `; write '${ch.toLowerCase()}' instead` : '';
    return `${shown} has ${describeChar(ch)} at character ${i + 1}${upper}; ${tail}`;
  }
  if (chars.length > r.max)
    return `${shown} is ${chars.length} characters long, more than ${r.max}; ${tail}`;
  const first = chars[0] as string;
  const last = chars[chars.length - 1] as string;
  if (r.firstLetter ? !/[a-z]/.test(first) : !/[a-z0-9]/.test(first))
    return `${shown} starts with '${first}'; ${tail}`;
  if (!/[a-z0-9]/.test(last)) return `${shown} ends with '${last}'; ${tail}`;
  if (rule === 'port-name' && !/[a-z]/.test(value)) return `${shown} has no letter; ${tail}`;
  if (rule === 'port-name' && value.includes('--'))
    return `${shown} has '--'; ${what} must not have two '-' in a row`;
  if (rule === 'dns1123-subdomain' && /(^|\.)[^a-z0-9]|[^a-z0-9](\.|$)/.test(value))
    return `${shown} has a part between dots that starts or ends with '-'; ${tail}`;
  return null;
}
