// Replaced by esbuild's `define` when the archive is built (build/bundle-svc.ts): the SPKI PEM of
// the release signing key when `signing.publicKey` was configured at build time, else empty.
// Read only by `svc update`, so `svc --version` and the gate never load it.
declare const __SVC_PUBLIC_KEY__: string | undefined;

/** The public key this svc checks update archives against; undefined when none was baked in. */
export function bakedPublicKey(): string | undefined {
  const pem = typeof __SVC_PUBLIC_KEY__ === 'string' ? __SVC_PUBLIC_KEY__ : '';
  return pem.trim() ? pem : undefined;
}
