// Types for the one internal Monaco module the lab reads: the page-wide "Tab moves focus" switch
// behind Monaco's own Ctrl+M action (esm/vs/editor/browser/config/tabFocus.js, monaco-editor 0.57).
declare module 'monaco-editor/editor/browser/config/tabFocus.js' {
  export const TabFocus: {
    getTabFocusMode(): boolean;
    setTabFocusMode(on: boolean): void;
    onDidChangeTabFocus(listener: (on: boolean) => void): { dispose(): void };
  };
}
