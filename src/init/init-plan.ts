/** What the written config says about one artifact, and the comment lines that go above it. */
export interface PlannedArtifact {
  name: string;
  value: Record<string, unknown> | false;
  notes: string[];
}

/** `release init`'s decision, before anything is written: the config, and what to tell the user. */
export interface InitPlan {
  registry: string;
  artifacts: PlannedArtifact[];
  /** Build args and client variables that carry the version, besides the standard names. */
  versionVariables: { server: string[]; client: string[] };
  /** Read from the repository as it is. */
  found: string[];
  /** Decided by a rule of thumb: check these. */
  guessed: string[];
  /** Not knowable from the files: the user must fill these in. */
  todo: string[];
}
