/**
 * An importer's message (a dump's diagnostic, a field's problem, a note on a line) in the user's
 * language: the text of its `code` in the ownHostErrors namespace (src/app/i18n), filled with its
 * `params`; its English `message` when it has no key (the engine's own sentences) or the key has
 * no text.
 */
import type { TFunction } from 'i18next';

export interface Keyed {
  readonly code?: string;
  readonly params?: Readonly<Record<string, string | number>>;
}

export function ownText(t: TFunction, m: Keyed, english: string): string {
  return m.code ? t(`ownHostErrors:${m.code}`, { ...m.params, defaultValue: english }) : english;
}
