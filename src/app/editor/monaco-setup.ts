/**
 * Monaco with only what the lab needs (the editor API, the editor features a YAML author uses,
 * YAML, monaco-yaml with our schema), in its own lazily loaded chunk. Workers are bundled by Vite
 * (`?worker`).
 */
import * as monaco from 'monaco-editor/editor/editor.api.js';
import 'monaco-editor/languages/definitions/yaml/register.js';
// editor.api.js is the bare editor: each feature is a contribution that registers itself on
// import (the list is editor.main's, cut to what editing manifests uses).
import 'monaco-editor/editor/contrib/suggest/browser/suggestController.js';
import 'monaco-editor/editor/contrib/snippet/browser/snippetController2.js';
import 'monaco-editor/editor/contrib/hover/browser/hoverContribution.js';
import 'monaco-editor/editor/contrib/gotoError/browser/gotoError.js';
import 'monaco-editor/editor/contrib/toggleTabFocusMode/browser/toggleTabFocusMode.js';
import 'monaco-editor/editor/contrib/find/browser/findController.js';
import 'monaco-editor/editor/contrib/folding/browser/folding.js';
import 'monaco-editor/editor/contrib/comment/browser/comment.js';
import 'monaco-editor/editor/contrib/bracketMatching/browser/bracketMatching.js';
import 'monaco-editor/editor/contrib/clipboard/browser/clipboard.js';
import 'monaco-editor/editor/contrib/cursorUndo/browser/cursorUndo.js';
import 'monaco-editor/editor/contrib/linesOperations/browser/linesOperations.js';
import 'monaco-editor/editor/contrib/wordOperations/browser/wordOperations.js';
import 'monaco-editor/editor/contrib/multicursor/browser/multicursor.js';
import 'monaco-editor/editor/contrib/format/browser/formatActions.js';
import 'monaco-editor/editor/contrib/codeAction/browser/codeActionContributions.js';
import { TabFocus } from 'monaco-editor/editor/browser/config/tabFocus.js';
import { configureMonacoYaml } from 'monaco-yaml';
import EditorWorker from 'monaco-editor/editor/editor.worker.js?worker';
import YamlWorker from './yaml.worker.ts?worker';
import { K8S_SCHEMA } from './k8s-schema.ts';

let configured = false;

export const MANIFESTS_URI = 'file:///manifests.yaml';
export const K8S_SCHEMA_URI = 'hookpath://schema/kubernetes.json';

/**
 * Labels Monaco 0.5x asks `MonacoEnvironment.getWorker` for: its own editor worker
 * ('editorWorkerService') and the label a language service passes (monaco-yaml's is 'yaml').
 */
export function workerFor(label: string): Worker {
  switch (label) {
    case 'yaml':
      return new YamlWorker({ name: 'yaml' });
    case 'editorWorkerService':
      return new EditorWorker({ name: 'editorWorkerService' });
    default:
      throw new Error(`Hookpath bundles no Monaco worker for "${label}"`);
  }
}

interface LegacyWorkerOptions {
  readonly label?: string;
  readonly createData?: unknown;
  readonly host?: Record<string, (...args: unknown[]) => unknown>;
  readonly keepIdleModels?: boolean;
}

/**
 * `monaco.editor.createWebWorker` as monaco-worker-manager (inside monaco-yaml 5.5) still calls
 * it: with a label and createData, no worker. Monaco 0.53+ takes a ready worker instead and throws
 * "Cannot read properties of undefined (reading 'label')", then runs the worker's code on the main
 * thread where no yaml handler exists ("Missing requestHandler or method: doValidation"); see
 * remcohaszing/monaco-yaml#272. This is Monaco's own adapter for its bundled languages
 * (esm/vs/internal/common/workers.js of monaco-editor 0.57): make the worker from the label, send
 * it a first message that boots it and then the createData, then hand it to the new API.
 */
function createWebWorker(opts: LegacyWorkerOptions) {
  const worker = workerFor(opts.label ?? 'editorWorkerService');
  worker.postMessage('ignore');
  worker.postMessage(opts.createData);
  return monaco.editor.createWebWorker({
    worker,
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.keepIdleModels !== undefined ? { keepIdleModels: opts.keepIdleModels } : {}),
  });
}

export function setupMonaco(): typeof monaco {
  if (configured) return monaco;
  configured = true;
  globalThis.MonacoEnvironment = { getWorker: (_id: string, label: string) => workerFor(label) };
  // Tab moves the focus on, as in any form: Monaco would otherwise keep every Tab as an indent
  // and the keyboard user could never leave the editor. Ctrl+M (Ctrl+Shift+M on macOS) is
  // Monaco's own toggle back to Tab indenting; the editor shows which mode is on.
  TabFocus.setTabFocusMode(true);
  configureMonacoYaml(
    { ...monaco, editor: { ...monaco.editor, createWebWorker } } as unknown as typeof monaco,
    {
      enableSchemaRequest: false,
      validate: true,
      completion: true,
      hover: true,
      isKubernetes: true,
      schemas: [{ uri: K8S_SCHEMA_URI, fileMatch: [MANIFESTS_URI], schema: K8S_SCHEMA as never }],
    },
  );
  return monaco;
}

/** Whether Tab moves the focus (true) or indents. */
export function tabMovesFocus(): boolean {
  setupMonaco();
  return TabFocus.getTabFocusMode();
}

/** Hears Ctrl+M switching what Tab does. */
export function onTabFocusChange(listener: (moves: boolean) => void): { dispose(): void } {
  return TabFocus.onDidChangeTabFocus(listener);
}
