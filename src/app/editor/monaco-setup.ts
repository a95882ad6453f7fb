/**
 * Monaco with only what the lab needs (the editor API, YAML, monaco-yaml with our schema), in
 * its own lazily loaded chunk. Workers are bundled by Vite (`?worker`).
 */
import * as monaco from 'monaco-editor/editor/editor.api.js';
import 'monaco-editor/languages/definitions/yaml/register.js';
import { configureMonacoYaml } from 'monaco-yaml';
import EditorWorker from 'monaco-editor/editor/editor.worker.js?worker';
import YamlWorker from './yaml.worker.ts?worker';
import { K8S_SCHEMA } from './k8s-schema.ts';

let configured = false;

export const MANIFESTS_URI = 'file:///manifests.yaml';

export function setupMonaco(): typeof monaco {
  if (configured) return monaco;
  configured = true;
  globalThis.MonacoEnvironment = {
    getWorker(_id: string, label: string) {
      return label === 'yaml' ? new YamlWorker() : new EditorWorker();
    },
  };
  configureMonacoYaml(monaco, {
    enableSchemaRequest: false,
    validate: true,
    completion: true,
    hover: true,
    schemas: [
      {
        uri: 'hookpath://schema/kubernetes.json',
        fileMatch: [MANIFESTS_URI],
        schema: K8S_SCHEMA as never,
      },
    ],
  });
  return monaco;
}
