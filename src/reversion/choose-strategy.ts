import type { ReversionStrategy } from '../config/artifacts-schema.ts';

export interface StrategyInput {
  kind: 'image' | 'cli';
  /** The artifact's `reversion`, when it declares one. */
  declared?: ReversionStrategy | undefined;
  /** Whether a build command makes it (only then can a release rebuild it). */
  builtByCommand: boolean;
  /** Files of its output whose content or name holds the version in any form. */
  carryingVersion: readonly string[];
  /** Files a release re-writes in place (declared version files; an npm CLI's package.json). */
  inPlace: readonly string[];
}

export interface StrategyChoice {
  strategy: ReversionStrategy;
  reason: string;
}

/**
 * Which way a release made from an rc gets its version, and why (what `release build` prints per
 * artifact). A declaration wins. Else: output of a build command that holds the version outside
 * the files re-written in place is rebuilt from the rc's commit (the version is in its code); an
 * image is otherwise re-versioned in place (its env and labels always are, plus its version
 * files); an npm CLI gets its package.json re-written; any other CLI is kept as the rc's. Pure.
 */
export function chooseStrategy(input: StrategyInput): StrategyChoice {
  if (input.declared) return { strategy: input.declared, reason: 'declared (reversion)' };
  const inPlace = new Set(input.inPlace);
  const baked = input.carryingVersion.filter((path) => !inPlace.has(path));
  if (input.builtByCommand && baked.length > 0)
    return { strategy: 'rebuild', reason: `the build bakes the version into ${list(baked)}` };
  if (input.kind === 'image')
    return {
      strategy: 'in-place',
      reason:
        inPlace.size > 0
          ? `version env and labels, and ${list([...inPlace])}`
          : 'version env and labels (no file carries the version)',
    };
  // An npm CLI's package.json is always re-written: its registry version is the release's.
  if (inPlace.size > 0) return { strategy: 'in-place', reason: `${list([...inPlace])} re-written` };
  if (baked.length > 0)
    return {
      strategy: 'keep',
      reason: `${list(baked)} carry the version, and no build command can rebuild it`,
    };
  return { strategy: 'keep', reason: 'its files do not carry the version' };
}

function list(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}
