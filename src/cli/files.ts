/** What the CLI reads (read-input.ts reads it), and how much of each kind of file. */
import { YAML_LIMITS } from '../kube/manifests/yaml-source.ts';
import { RULES_LIMIT } from './read-input.ts';

export { readInput } from './read-input.ts';

/** How much the CLI reads of each kind of file. */
export const FILE_LIMITS = {
  rules: RULES_LIMIT,
  /** Scenario and host files (YAML): the YAML reader's own limit. */
  yaml: YAML_LIMITS.maxChars,
};
