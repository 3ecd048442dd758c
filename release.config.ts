import { defineConfig } from 'service-release';
import { referenceArtifacts } from 'service-release/reference';

// This repository's own release: the reference service (API, worker, web, svc), declared as
// artifacts like any other service's (src/service/release-artifacts.ts says how each is built),
// into the embedded OCI layout store, so a fresh checkout needs no registry and no Docker engine.
export default defineConfig({
  registry: 'oci-layout:.release/oci',
  record: 'dist/release.json',
  artifacts: referenceArtifacts(),
});
