/** `/scenarios/000-vip22.yaml` → `000-vip22`. */
export function scenarioId(path: string): string {
  return path.replace(/^.*\//, '').replace(/\.ya?ml$/, '');
}
