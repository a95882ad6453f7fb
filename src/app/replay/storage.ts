/** The pasted trace survives a reload: kept in this browser's localStorage, nowhere else. */
const KEY = 'hookpath.replay.trace';
/** localStorage holds ~5 MB per origin: a longer paste is kept for this page only. */
const MAX_KEPT = 1_000_000;

export function loadTrace(): string {
  try {
    return globalThis.localStorage?.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

export function saveTrace(text: string): void {
  try {
    if (!text) globalThis.localStorage?.removeItem(KEY);
    else if (text.length <= MAX_KEPT) globalThis.localStorage?.setItem(KEY, text);
  } catch {
    // Storage full or forbidden (private mode): the text stays on screen, only not kept.
  }
}
