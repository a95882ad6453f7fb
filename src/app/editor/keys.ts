/** Monaco's key for "Tab moves focus" on/off: Ctrl+M, and Ctrl+Shift+M on Apple systems. */
export function tabToggleKey(platform: string = globalThis.navigator?.platform ?? ''): string {
  return /Mac|iPhone|iPad/.test(platform) ? 'Ctrl+Shift+M' : 'Ctrl+M';
}
