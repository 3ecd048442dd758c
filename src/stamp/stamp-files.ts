import { dirname, join, resolve } from 'node:path';
import { cliRecord, type ReleaseRecord, recordPath } from '../record/release-record.ts';
import type { FileToWrite } from '../shared/atomic-write.ts';

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

/** The contents of every file a stamp writes. Pure: the caller writes them all or none. */
export function stampFiles(record: ReleaseRecord, paths: StampPaths): FileToWrite[] {
  const serviceVersion = { SERVICE_VERSION: record.tag };
  const clientVersion = { SERVICE_CLIENT_VERSION: record.tag };
  const cli = cliRecord(record);
  return [
    {
      path: paths.envFile,
      // Tags are validated against the image-tag grammar, so no quoting is ever needed.
      content: `SERVICE_VERSION=${record.tag}\nSERVICE_CLIENT_VERSION=${record.tag}\n`,
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
    ...(cli ? [{ path: paths.cliVersion, content: json({ name: cli.package, version: record.tag }) }] : []),
    { path: paths.record, content: json(record) },
  ];
}

/** The keys CI reads (`--json` and `$GITHUB_OUTPUT`). */
export function stampOutputs(record: ReleaseRecord): Record<string, string | boolean | null> {
  return {
    version: record.version,
    tag: record.tag,
    channel: record.channel,
    source: record.source,
    commit: record.commit,
    dirty: record.dirty,
  };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
