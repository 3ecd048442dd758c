import type { Option } from 'commander';
import { UsageError } from '../../errors.ts';
import { composeEntry } from './compose/compose-entry.ts';
import { swarmEntry } from './swarm/swarm-entry.ts';
import type { UpgradeEngineEntry } from './upgrade-engine.ts';
import type { ConfiguredDeployment, EngineFlags } from './upgrade-input.ts';

/**
 * The deployment engines of `release upgrade`, the one place that names them: a new engine is a
 * folder of its own (commands/upgrade/<engine>/, upgrade/<engine>/, deployment-engines/<engine>/)
 * and one entry here. Their flags appear in `release upgrade --help` in this order. The entry
 * that says no `selects` is the default: it runs when no other is asked for.
 */
export const UPGRADE_ENGINES: readonly UpgradeEngineEntry[] = [
  composeEntry, // --compose, or the deployment's compose.files: a Compose project
  swarmEntry, // otherwise: Docker Swarm services
];

/** What the engines upgrade, the default first: "Docker Swarm or a Compose project". */
export function enginesTitle(engines = UPGRADE_ENGINES): string {
  const titles = [...engines.filter((e) => !e.selects), ...engines.filter((e) => e.selects)].map(
    (e) => e.title,
  );
  return titles.length > 1 ? `${titles.slice(0, -1).join(', ')} or ${titles.at(-1)}` : (titles[0] ?? '');
}

/** Every engine's flags, each once (two Docker engines share `--docker-host`). */
export function engineOptions(engines = UPGRADE_ENGINES): Option[] {
  const seen = new Set<string>();
  return engines
    .flatMap((engine) => engine.options)
    .filter((option) => !seen.has(option.flags) && seen.add(option.flags));
}

/**
 * The engine the flags and the config's deployment ask for, else the default one. Two asked for
 * at once is a usage error; so is an engine's own flag (`--project-name`) while another runs.
 */
export function selectEngine(
  flags: EngineFlags,
  deployment: ConfiguredDeployment | undefined,
  engines = UPGRADE_ENGINES,
): UpgradeEngineEntry {
  const asked = engines.filter((engine) => engine.selects?.(flags, deployment));
  if (asked.length > 1) {
    throw new UsageError(
      'UPGRADE_ENGINES_CONFLICT',
      `the flags and the deployment ask for more than one engine: ${asked.map((e) => e.name).join(', ')}`,
      { hint: "name one engine's flags (or one engine in the config's deployment)" },
    );
  }
  const chosen = asked[0] ?? engines.find((engine) => !engine.selects)!;
  for (const other of engines) {
    const refusal = other === chosen ? undefined : other.strayFlags?.(flags);
    if (refusal) throw refusal;
  }
  return chosen;
}
