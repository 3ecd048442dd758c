import type { Channel } from '../../channels/channel-of.ts';
import type { RepoInfo } from '../../git/repo-info.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { StampPaths } from '../../stamp/stamp-files.ts';
import type { StampDecision } from '../../stamp/stamp-plan.ts';
import type { ResolvedVersion } from '../../version-source/resolve-version.ts';

export interface StampContext extends BaseContext {
  requestedChannel?: Channel;
  paths: StampPaths;
  resolved?: ResolvedVersion;
  repo?: RepoInfo;
  /** The repository's state, asked for before the stamp's own code had loaded (main.ts). */
  repoRead?: Promise<RepoInfo>;
  /** Untracked, not ignored files inside the artifacts' inputs (relative to the config's folder). */
  untracked?: string[];
  decision?: StampDecision;
}
