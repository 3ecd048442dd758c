import { imageArtifact, imageArtifactNames } from '../../config/artifacts.ts';
import type { Step } from '../../pipeline/step.ts';
import { readTag, registryReading, type TagReading } from '../../verify/probes/registry.ts';
import type { ProbeResult } from '../../verify/types.ts';
import { deploymentEngine } from '../../verify/worker-engines.ts';
import { deployedVersion, storeTagOf, storeTagRead } from './deployed-images.ts';
import type { VerifyContext } from './verify-context.ts';

/** One row of the registry mode: an artifact (a role of a shared image), its image, what runs it. */
interface RegistrySubject {
  artifact: string;
  role?: string;
  repository: string;
  running: ProbeResult[];
}

/**
 * `--registry`: the digest each image's expected tag points to, against the digests running. One
 * reading per role of a shared image (named as its Docker row is: `worker scheduler`), each with
 * its own containers; the tag of an image is read once, however many roles run it.
 */
export const verifyRegistryStep: Step<VerifyContext> = {
  title: 'Compare running digests with the registry',
  skip: (ctx) => (ctx.store ? false : 'pass --registry (with --docker) to compare digests'),
  async run(ctx, io) {
    const version = deployedVersion(ctx);
    if (!version) {
      ctx.registry = [];
      io.progress('no readable tag to look up');
      return;
    }
    const tag = await storeTagOf(ctx, version);
    const subjects = [...probedSubjects(ctx), ...(await extraSubjects(ctx))];
    const reads = new Map<string, Promise<TagReading>>();
    for (const s of subjects)
      if (!reads.has(s.repository))
        reads.set(s.repository, readTag(ctx.store!, s.repository, tag, storeTagRead(ctx, s.repository, tag)));
    ctx.registry = await Promise.all(
      subjects.map(async (s) =>
        registryReading({ store: ctx.store!, ...s, tag, read: await reads.get(s.repository)! }),
      ),
    );
    io.progress(`${reads.size} image(s) looked up at ${tag}, ${subjects.length} row(s)`);
  },
};

/**
 * API, worker and web as the engine runs them: one subject per artifact, and per role when one
 * image runs several (its repository is the role's image). Only what the engine runs has a digest.
 */
function probedSubjects(ctx: VerifyContext): RegistrySubject[] {
  const probed = ctx.probed!;
  const found = [...probed.results, ...probed.digests].filter((r) => r.image !== undefined && !r.error);
  const subjects = new Map<string, RegistrySubject>();
  for (const r of found) {
    const role = r.role && r.role !== r.name ? r.role : undefined;
    const key = `${r.name}\0${role ?? ''}`;
    const repository =
      (r.role ? imageArtifact(ctx.config, r.role)?.image : undefined) ??
      (r.name === 'cli' || r.name === 'job' ? undefined : ctx.options.images[r.name]);
    if (repository === undefined) continue;
    const subject: RegistrySubject = subjects.get(key) ?? {
      artifact: r.name,
      ...(role ? { role } : {}),
      repository,
      running: [],
    };
    // A stopped container is a leftover: it names the artifact, but its digest is not checked.
    // A job's last run is the exception: what it ran is the image that did the work.
    if (r.running !== false || r.name === 'job') subject.running.push(r);
    subjects.set(key, subject);
  }
  const order = ['api', 'worker', 'job', 'web'];
  const names = imageArtifactNames(ctx.config);
  const rank = (s: RegistrySubject) =>
    order.indexOf(s.artifact) * names.length + (s.role ? names.indexOf(s.role) + 1 : 0);
  return [...subjects.values()].sort((a, b) => rank(a) - rank(b));
}

/**
 * Extra images are released in step with the rest: the same tag must exist, and whatever runs of
 * them on the engine must be the digest it names.
 */
async function extraSubjects(ctx: VerifyContext): Promise<RegistrySubject[]> {
  return Promise.all(
    Object.entries(ctx.extraImages ?? {}).map(async ([name, repository]) => {
      const engine = deploymentEngine(ctx.target);
      const found = engine
        ? await engine.readImage({
            image: repository,
            wholeEngine: true,
            env: ctx.env,
            timeoutMs: ctx.options.timeoutMs,
          })
        : [];
      const live = found.filter((r) => r.image !== undefined && !r.error && r.running !== false);
      return { artifact: name, repository, running: live };
    }),
  );
}
