import { defineConfig } from 'service-release';

// This repository's own release: it releases the reference service (API, worker, web, svc) into
// the embedded OCI layout store, so a fresh checkout needs no registry and no Docker engine.
export default defineConfig({
  registry: 'oci-layout:.release/oci',
  record: 'dist/release.json',
  artifacts: {
    api: { image: 'service-api' },
    worker: { image: 'service-worker' },
    web: { image: 'service-web' },
    cli: { package: 'service-cli' },
  },
});
