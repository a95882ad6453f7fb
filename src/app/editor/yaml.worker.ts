// monaco-yaml's worker, re-exported from our own file (monaco-yaml's advice for Vite).
import 'monaco-yaml/yaml.worker.js';
