import type { Step } from '../../pipeline/step.ts';
import { loadSigningKeyStep } from './load-signing-key-step.ts';
import { resolveSignTargetsStep } from './resolve-sign-targets-step.ts';
import type { SignContext } from './sign-context.ts';
import { signImagesStep } from './sign-images-step.ts';

/**
 * `release sign`: sign images by manifest digest, never by tag.
 * Pipelines are ordered data, one comment per step; each command's lives in its own module so a
 * command loads only its own steps (build and signing pull in Vite, esbuild and Sigstore).
 */
export const signPipeline: readonly Step<SignContext>[] = [
  loadSigningKeyStep, // unlock the private key first: a wrong passphrase fails before any network
  resolveSignTargetsStep, // tags -> manifest digests (refuses a tag that moved since the build)
  signImagesStep, // sign each digest, attach the bundle as a referrer, read it back
];
