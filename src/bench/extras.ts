/** Further benchmark sections added by later work (generator, scenarios, UI build). */
export async function benchExtras(): Promise<void> {}
