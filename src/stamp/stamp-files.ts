import { dirname, join, resolve } from 'node:path';
import {
  clientVersionVariables,
  serverVersionVariables,
  type VersionVariables,
} from '../config/version-variables.ts';
import type { FileToWrite } from '../files/atomic-write.ts';
import { cliRecord, type ReleaseRecord, recordPath } from '../record/release-record.ts';

export interface StampPaths {
  record: string;
  /** dotenv for the api and worker containers and the web build. */
  envFile: string;
  /** Docker build args per artifact, read by `release build`. */
  buildArgs: string;
  /** The metadata the built `svc` reads for `svc --version`. */
  cliVersion: string;
}

/** Where the stamp writes: beside the record unless `--env-out` (`--env-file`) says otherwise. */
export function stampPaths(options: {
  configDir: string;
  cwd: string;
  record: string;
  envFile?: string;
}): StampPaths {
  // The record is a config setting (relative to the config, inside the project: its siblings
  // follow it); --env-out is the caller's own path, given on the command line.
  const record = recordPath(options.configDir, options.record);
  const envFile = options.envFile;
  const cwd = options.cwd;
  const dir = dirname(record);
  return {
    record,
    envFile: envFile ? resolve(cwd, envFile) : join(dir, 'release.env'),
    buildArgs: join(dir, 'build-args.json'),
    cliVersion: join(dir, 'cli-version.json'),
  };
}

/** The service's own version variables (`versionVariables`), beside the standard names. */
type Variables = { versionVariables?: Partial<VersionVariables> | undefined };

/**
 * The contents of every file a stamp writes. Pure: the caller writes them all or none. Every
 * version variable gets the tag: the dotenv has them all, an image's build args its role's.
 */
export function stampFiles(record: ReleaseRecord, paths: StampPaths, config: Variables = {}): FileToWrite[] {
  const named = (names: string[]) => Object.fromEntries(names.map((name) => [name, record.tag]));
  const serviceVersion = named(serverVersionVariables(config));
  const clientVersion = named(clientVersionVariables(config));
  const cli = cliRecord(record);
  return [
    {
      path: paths.envFile,
      // Tags are validated against the image-tag grammar, so no quoting is ever needed.
      content: Object.entries({ ...serviceVersion, ...clientVersion })
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
    },
    {
      path: paths.buildArgs,
      content: json(
        Object.fromEntries(
          Object.entries(record.artifacts)
            .filter(([, entry]) => 'references' in entry)
            .map(([name, entry]) => [
              name,
              'role' in entry && entry.role === 'web' ? clientVersion : serviceVersion,
            ]),
        ),
      ),
    },
    // A CLI on its own version line keeps the version its package declares: nothing is stamped.
    ...(cli && cli.line !== 'own'
      ? [{ path: paths.cliVersion, content: json({ name: cli.package, version: record.tag }) }]
      : []),
    { path: paths.record, content: json(record) },
  ];
}

/**
 * The keys CI reads (`--json` and `$GITHUB_OUTPUT`); with `versionVariables`, one more key per
 * name the service reads (`ACME_VERSION`, `VITE_ACME_VERSION`), each the tag, so a workflow
 * passes it on by the service's own name.
 */
export function stampOutputs(
  record: ReleaseRecord,
  config: Variables = {},
): Record<string, string | boolean | null> {
  const own = [...(config.versionVariables?.server ?? []), ...(config.versionVariables?.client ?? [])];
  return {
    version: record.version,
    tag: record.tag,
    channel: record.channel,
    source: record.source,
    commit: record.commit,
    dirty: record.dirty,
    ...Object.fromEntries(own.map((name) => [name, record.tag])),
  };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
