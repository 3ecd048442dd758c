/**
 * The library surface of service-release. The reference artifacts' building blocks
 * (`createVersionHandler`, `checkCliCompatibility`) are exported here as their issues land.
 */

export { type Channel, channelOf, channelRefusal, channelTags } from './channels/index.ts';
export {
  defineConfig,
  loadConfig,
  type ReleaseConfig,
  type ReleaseConfigInput,
  validateConfig,
} from './config/index.ts';
export * from './errors.ts';
export * from './version/index.ts';
