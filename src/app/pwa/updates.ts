/**
 * Whether a new version of the site is installed and waiting, as a tiny external store the
 * prompt subscribes to. Kept free of the service-worker plumbing (register.ts) so the prompt is
 * testable without a browser.
 */
export interface UpdateState {
  /** A new service worker is installed and waits for the reader's consent. */
  readonly waiting: boolean;
  /** The reader chose "Later" for this page view. */
  readonly dismissed: boolean;
}

export interface Updates {
  get(): UpdateState;
  subscribe(listener: () => void): () => void;
  /** Called by the registration when a new version waits. */
  markWaiting(): void;
  dismiss(): void;
  /** Activates the waiting version; the page reloads once it controls the page. */
  apply(): void;
}

export function createUpdates(activate: () => unknown): Updates {
  let state: UpdateState = { waiting: false, dismissed: false };
  const listeners = new Set<() => void>();
  const set = (next: UpdateState) => {
    state = next;
    for (const l of listeners) l();
  };
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    markWaiting: () => set({ waiting: true, dismissed: false }),
    dismiss: () => set({ ...state, dismissed: true }),
    apply: () => void activate(),
  };
}
