import type Docker from 'dockerode';
import { parseBaseImageRef } from '../../registry/image-ref.ts';
import type { ImageStore } from '../../registry/store.ts';
import { printable } from '../../text/printable.ts';

/** Where a build could get an image: the engine has it, its registry has it, or why neither. */
export type Reachability =
  | { where: 'engine' | 'registry' }
  /** `missing`: the registry answered and has no such image; `unknown`: it could not be asked. */
  | { where: 'missing' | 'unknown'; reason: string };

const REGISTRY_MS = 6_000;

/**
 * Whether a build can start from `image` (a base, a `# syntax=` frontend): in the engine under that
 * name (what BuildKit uses without pulling), else in its registry, asked with our own client and a
 * short deadline. `docker` undefined: no engine answered, only the registry is asked.
 */
export async function imageReachable(
  image: string,
  options: { docker: Docker | undefined; open: (registry: string) => ImageStore },
): Promise<Reachability> {
  if (options.docker) {
    const found = await options.docker
      .getImage(image)
      .inspect()
      .then(() => true)
      .catch(() => false);
    if (found) return { where: 'engine' };
  }
  let ref: ReturnType<typeof parseBaseImageRef>;
  try {
    ref = parseBaseImageRef(image);
  } catch (error) {
    return { where: 'missing', reason: printable((error as Error).message, { max: 200 }) };
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const found = await Promise.race([
      options.open(ref.store).resolve(ref.repository, ref.reference),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${REGISTRY_MS / 1000} s`)), REGISTRY_MS);
      }),
    ]);
    return found
      ? { where: 'registry' }
      : { where: 'missing', reason: `${ref.store} has no ${printable(image, { max: 200 })}` };
  } catch (error) {
    return {
      where: 'unknown',
      reason: `${ref.store} could not be asked: ${printable((error as Error).message, { max: 200 })}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
