// Replaced at build time with the validated `SERVICE_CLIENT_VERSION` (build/version-plugin.ts).
declare const __SERVICE_CLIENT_VERSION__: string | undefined;

/** This client's own version, as baked in by the build; `unknown` when built without one. */
export const CLIENT_VERSION: string =
  typeof __SERVICE_CLIENT_VERSION__ === 'string' ? __SERVICE_CLIENT_VERSION__ : 'unknown';
