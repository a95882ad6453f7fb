/** The key that goes with a letter or the wheel on this platform: ⌘ on Apple's, Ctrl elsewhere. */
export function modifierKey(platform: string = globalThis.navigator?.platform ?? ''): string {
  return /Mac|iPhone|iPad/.test(platform) ? '⌘' : 'Ctrl';
}
