import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ExternalError } from '../../errors.ts';
import { printable } from '../../text/printable.ts';
import { registerSecret } from '../../text/redact.ts';
import { formatBuildFailure, readBuildFailure } from './build-failure.ts';
import type { DockerBuilder } from './docker-builder.ts';

export interface BuildKitBuild {
  /** The context as a tar, sent on stdin (`docker build -`): the context we made, .dockerignore applied. */
  context: Buffer;
  /** The Dockerfile's path inside the context. */
  dockerfile: string;
  target: string;
  /** The local name to give the image; none for a platform image of several (kept by its ID). */
  tag: string | undefined;
  buildArgs: Record<string, string>;
  labels: Record<string, string>;
  platform: string | undefined;
  network: 'host' | 'none' | 'default';
  /** Secrets by id: from an environment variable of the build, or a file. */
  secrets: readonly { id: string; env?: string | undefined; file?: string | undefined }[];
  cacheFrom: readonly string[];
  cacheTo: readonly string[];
  /** The environment the CLI runs in (DOCKER_HOST, DOCKER_CONFIG, the secrets' variables). */
  env: Record<string, string | undefined>;
}

/** Kept of the builder's output for the failure message (the plain output of a large build is long). */
const KEPT_CHARS = 256 * 1024;

/**
 * Build one image with the builder's CLI and return its image ID (`--iidfile`). Step titles are
 * passed to `progress`; on failure the error quotes the builder's failing step and its last output
 * lines (readBuildFailure), never a guess.
 */
export async function runBuildKit(
  builder: DockerBuilder,
  build: BuildKitBuild,
  progress: (line: string) => void,
): Promise<string> {
  // A step that prints a secret must not carry it into our output: every line we print is redacted.
  for (const secret of build.secrets) {
    if (secret.env) registerSecret(build.env[secret.env]?.trim());
    if (secret.file)
      registerSecret((await readFile(secret.file, 'utf8').catch(() => '')).slice(0, 64 * 1024).trim());
  }
  const dir = await mkdtemp(join(tmpdir(), 'release-buildkit-'));
  const iidfile = join(dir, 'iid');
  const args = [
    ...(builder.kind === 'buildx' ? ['buildx', 'build', '--load'] : ['build']),
    '--progress=plain',
    '--file',
    build.dockerfile,
    '--target',
    build.target,
    '--iidfile',
    iidfile,
    ...(build.tag ? ['--tag', build.tag] : []),
    ...(build.platform ? ['--platform', build.platform] : []),
    ...(build.network === 'default' ? [] : ['--network', build.network]),
    ...Object.entries(build.buildArgs).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
    ...Object.entries(build.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    ...build.secrets.flatMap((s) => [
      '--secret',
      s.env ? `id=${s.id},env=${s.env}` : `id=${s.id},src=${s.file}`,
    ]),
    ...build.cacheFrom.flatMap((c) => ['--cache-from', c]),
    ...build.cacheTo.flatMap((c) => ['--cache-to', c]),
    '-',
  ];
  let kept = '';
  let partial = '';
  const keep = (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      // Step titles only (`#5 [api 2/4] RUN npm ci`): the rest is in the failure when it matters.
      if (/^#\d+ \[/.test(line)) progress(printable(line.replace(/^#\d+ /, ''), { max: 200 }));
    }
    kept = (kept + lines.map((l) => `${l}\n`).join('')).slice(-KEPT_CHARS);
  };
  try {
    const child = execa(builder.cli, args, {
      env: { ...build.env, ...(builder.kind === 'buildkit' ? { DOCKER_BUILDKIT: '1' } : {}) },
      extendEnv: false,
      input: build.context,
      reject: false,
      all: true,
      buffer: false,
    });
    child.all?.on('data', keep);
    const result = await child;
    kept += partial;
    if (result.exitCode !== 0 || result.failed) {
      const failure = readBuildFailure(kept || (result.shortMessage ?? ''));
      throw new ExternalError(
        'DOCKER_BUILD_FAILED',
        `the BuildKit build of ${build.tag ?? 'the image'}${build.platform ? ` for ${build.platform}` : ''} failed (${builder.description}):\n${formatBuildFailure(failure)}`,
        {
          hint: failure.step
            ? `the step quoted above is the builder's own; fix it in ${printable(build.dockerfile)} (or its inputs) and build again`
            : `the builder's own message is quoted above; \`release build --dry-run\` reads ${printable(build.dockerfile)} for what it needs`,
        },
      );
    }
    return (await readFile(iidfile, 'utf8')).trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
