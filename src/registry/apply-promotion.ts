import type { Channel } from '../channels/channel-of.ts';
import {
  type ArtifactState,
  orderedWrites,
  type PromotionPlan,
  short,
  type TagWrite,
  tagsToResolve,
} from '../channels/promotion-plan.ts';
import { ExternalError, isReleaseError, TAG_DELETE_UNSUPPORTED, UsageError } from '../errors.ts';
import { isDigest } from './digest.ts';
import type { ImageStore, Manifest } from './store.ts';

export interface PromotionSource {
  artifact: string;
  repository: string;
  /** A tag or digest in the repository whose manifest is promoted. */
  reference: string;
}

/** What the store holds before promotion: each artifact's state for the plan, and its manifest. */
export interface StoreState {
  states: Record<string, ArtifactState>;
  manifests: Record<string, Manifest>;
}

/**
 * Read what the plan needs: each source manifest (one GET, which also yields its digest and the
 * bytes to tag), the repository's tag list, and the digests of only the tags the plan looks at.
 */
export async function readStoreState(
  store: ImageStore,
  intent: { version: string; channel: Channel; commit?: string | undefined },
  sources: PromotionSource[],
): Promise<StoreState> {
  const states: Record<string, ArtifactState> = {};
  const manifests: Record<string, Manifest> = {};
  for (const source of sources) {
    const manifest = await store.getManifest(source.repository, source.reference);
    if (!manifest) {
      throw new UsageError(
        'SOURCE_MISSING',
        `${store.name}/${source.repository} has no ${isDigest(source.reference) ? 'manifest' : 'tag'} ${source.reference}`,
        {
          hint: 'run `release build` to push the images, or pass --from with a tag or digest that exists in every image',
        },
      );
    }
    const tags = await store.listTags(source.repository);
    const digests: Record<string, string | null> = Object.fromEntries(tags.map((t) => [t, null]));
    for (const tag of tagsToResolve(intent, tags)) {
      // A tag listed a moment ago may be gone now; then it is simply absent.
      const found = await store.resolve(source.repository, tag);
      if (found) digests[tag] = found.digest;
      else delete digests[tag];
    }
    states[source.artifact] = {
      repository: source.repository,
      source: manifest.descriptor.digest,
      tags: digests,
    };
    manifests[source.artifact] = manifest;
  }
  return { states, manifests };
}

export interface DoneWrite {
  artifact: string;
  reference: string;
  from: string | null;
  to: string;
}

export interface PromotionResult {
  status: 'promoted' | 'failed';
  /** Tags written and still in place. */
  written: DoneWrite[];
  /** Floating tags put back after a failure (`to` is the digest restored, null when removed). */
  undone: { artifact: string; reference: string; from: string; to: string | null }[];
  /** What a failure left behind that could not be put back, and why. */
  notUndone: { reference: string; digest: string; why: string }[];
  failure?: { reference: string; code: string; message: string };
}

/** A promotion failed part-way: carries exactly what was done and undone, for output and --json. */
export class PromotionFailedError extends ExternalError {
  /** The plan as the command line shows it, attached by the caller for `--json`. */
  plan: unknown;

  constructor(
    message: string,
    readonly result: PromotionResult,
    details: { hint: string; cause: unknown },
  ) {
    super(result.failure?.code ?? 'PROMOTION_FAILED', message, details);
  }

  override toJSON() {
    return { ...super.toJSON(), ...(this.plan ? { plan: this.plan } : {}), result: this.result };
  }
}

/**
 * Carry a plan out: version and commit tags of every artifact, then floating tags (`latest`,
 * `dev`). Each write is one PUT of the source manifest's exact bytes under the tag. If any write
 * fails, every floating tag already written (and the one in flight, whose fate is unknown) is put
 * back to its previous digest, or removed if it did not exist and the store can remove tags.
 * Version tags already written stay: they point at the right digest and a re-run skips them.
 * With `settlesLatest` (the release channel), `latest` is left for `settleLatest` to converge.
 */
export async function applyPromotion(
  store: ImageStore,
  plan: PromotionPlan,
  manifests: Record<string, Manifest>,
  onProgress: (line: string) => void = () => {},
  options: { settlesLatest?: boolean } = {},
): Promise<PromotionResult> {
  const result: PromotionResult = { status: 'promoted', written: [], undone: [], notUndone: [] };
  const touched: TagWrite[] = [];
  for (const write of orderedWrites(plan)) {
    const reference = referenceOf(store, write.repository, write.tag);
    const manifest = manifests[write.artifact]!;
    // `latest` is not put back when a settle follows (release channel): putting it back races
    // with concurrent promotions, and the settle brings it to the one right answer instead.
    if (write.kind === 'floating' && !(options.settlesLatest && write.tag === 'latest')) touched.push(write);
    try {
      await store.putManifest(write.repository, write.tag, manifest.bytes, manifest.descriptor.mediaType);
    } catch (error) {
      result.status = 'failed';
      result.failure = {
        reference,
        code: isReleaseError(error) ? error.code : 'PROMOTION_FAILED',
        message: (error as Error).message,
      };
      await undo(store, touched, result);
      throw new PromotionFailedError(failureMessage(result), result, {
        hint:
          isReleaseError(error) && error.hint
            ? `${error.hint}; then run the same promote again`
            : 'run the same promote again',
        cause: error,
      });
    }
    result.written.push({ artifact: write.artifact, reference, from: write.from, to: write.to });
    onProgress(`${reference} -> ${short(write.to)}`);
  }
  return result;
}

/** Point a tag back where it was before `write` (remove it when it did not exist). */
export async function putTagBack(
  store: ImageStore,
  write: Pick<TagWrite, 'repository' | 'tag' | 'from'>,
): Promise<void> {
  if (write.from === null) {
    if (!store.deleteTag) throw new Error(`${store.name} cannot delete tags`);
    await store.deleteTag(write.repository, write.tag);
    return;
  }
  const previous = await store.getManifest(write.repository, write.from);
  if (!previous) throw new Error(`the previous manifest ${short(write.from)} is gone`);
  await store.putManifest(write.repository, write.tag, previous.bytes, previous.descriptor.mediaType);
}

async function undo(store: ImageStore, touched: TagWrite[], result: PromotionResult): Promise<void> {
  for (const write of touched) {
    const reference = referenceOf(store, write.repository, write.tag);
    try {
      await retry(async () => {
        // The write in flight may never have landed: then there is nothing to remove.
        if (write.from === null && !(await store.resolve(write.repository, write.tag))) return;
        await putTagBack(store, write);
      });
      result.written = result.written.filter((w) => w.reference !== reference);
      result.undone.push({ artifact: write.artifact, reference, from: write.to, to: write.from });
    } catch (error) {
      result.notUndone.push({
        reference,
        digest: write.to,
        why: `${write.from === null ? 'it did not exist before' : `it was at ${short(write.from)}`}, and putting it back failed: ${(error as Error).message}`,
      });
    }
  }
}

async function retry(work: () => Promise<void>, attempts = 3): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (error) {
      if (i >= attempts || (isReleaseError(error) && error.code === TAG_DELETE_UNSUPPORTED)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * i));
    }
  }
}

function failureMessage(result: PromotionResult): string {
  const lines = [`promotion failed at ${result.failure!.reference}: ${result.failure!.message}`];
  const list = (title: string, items: string[]) => {
    lines.push(`${title}:${items.length ? '' : ' nothing'}`);
    for (const item of items) lines.push(`  ${item}`);
  };
  list(
    'kept (correct, a re-run skips them)',
    result.written.map((w) => `${w.reference} = ${short(w.to)}`),
  );
  list(
    'undone',
    result.undone.map((u) => `${u.reference} back to ${u.to === null ? '(removed)' : short(u.to)}`),
  );
  if (result.notUndone.length)
    list(
      'could NOT be undone',
      result.notUndone.map((n) => `${n.reference} stays at ${short(n.digest)}: ${n.why}`),
    );
  return lines.join('\n');
}

export function referenceOf(store: ImageStore, repository: string, tag: string): string {
  return `${store.name}/${repository}${isDigest(tag) ? '@' : ':'}${tag}`;
}
