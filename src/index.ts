/**
 * The library surface of service-release: the version core, the reference artifacts' building
 * blocks (`createVersionHandler`, `checkCliCompatibility`), and the release and verify machinery.
 */

export { type Channel, channelOf, channelRefusal, channelTags } from './channels/index.ts';
export { orderedWrites, type PromotionPlan, planPromotion } from './channels/promotion-plan.ts';
export {
  defineConfig,
  loadConfig,
  type ReleaseConfig,
  type ReleaseConfigInput,
  validateConfig,
} from './config/index.ts';
export * from './errors.ts';
export { copyImage } from './registry/copy-image.ts';
export { openStore } from './registry/open-store.ts';
export type { Descriptor, ImageStore, Manifest } from './registry/store.ts';
export { CHECKSUM_HEADER, CLI_ARCHIVE_PATH } from './service/api/cli-archive.ts';
export { MIN_CLI_VERSION } from './service/api/min-cli-version.ts';
export {
  createVersionHandler,
  type NextFunction,
  type RequestHandler,
  VERSION_PATH,
  type VersionHandlerOptions,
} from './service/api/version-handler.ts';
export { type CompatibilityOptions, checkCliCompatibility } from './service/svc/gate/check.ts';
export {
  decideCompatibility,
  type GateDecision,
  type GateMode,
  type GateOutcome,
  upgradeCommand,
} from './service/svc/gate/decide.ts';
export { readVersionDocument, type VersionProbe } from './service/svc/gate/version-document.ts';
export { type CheckInput, checkDeployment } from './verify/checks.ts';
export { type FleetOptions, type FleetReport, verifyFleet } from './verify/fleet.ts';
export type { VerifyTarget } from './verify/probe-deployment.ts';
export { reportJson } from './verify/report.ts';
export type { DeploymentReport, Finding, ProbeResult } from './verify/types.ts';
export { type VerifyOptions, verifyDeployment } from './verify/verify-deployment.ts';
export * from './version/index.ts';
export {
  type ResolvedVersion,
  type ResolveOptions,
  resolveVersion,
  type VersionSource,
} from './version-source/resolve-version.ts';
