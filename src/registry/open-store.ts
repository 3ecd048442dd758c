import { resolve } from 'node:path';
import { OCI_LAYOUT_PREFIX } from '../config/constants.ts';
import { currentIo } from '../console/cli-io.ts';
import { UsageError } from '../errors.ts';
import { printable, printableLines } from '../text/printable.ts';
import { LayoutStore } from './layout-store.ts';
import { journalDirOf } from './promotion-journal.ts';
import { withRecovery } from './recovering-store.ts';
import { RegistryStore } from './registry-store.ts';
import type { ImageStore } from './store.ts';

export interface OpenStoreOptions {
  /** Relative layout directories resolve against this. */
  cwd: string;
  /** Where credentials (DOCKER_CONFIG, HOME) and credential helpers (PATH) are found. */
  env: Record<string, string | undefined>;
  /** Registry hosts that may be reached over plain http (config `insecureRegistries`). */
  insecure?: string[];
  /** Deadline of each registry request (default 30 s). */
  timeoutMs?: number;
  /** Where notices go (a lock taken over, a promotion recovered); default: `notice:` on stderr. */
  notice?: (text: string) => void;
}

/**
 * The store a config's `registry` names: `oci-layout:<dir>` (relative to cwd) for OCI image
 * layouts on disk, anything else (`host[:port][/namespace]`) for a distribution registry. Either
 * comes wrapped so that its first use finishes or undoes what a killed promotion left
 * (`recover-promotion.ts`): every command touching a store puts it right first.
 */
export function openStore(registry: string, options: OpenStoreOptions): ImageStore {
  const notice =
    options.notice ?? ((text: string) => void currentIo().stderr.write(`notice: ${printableLines(text)}\n`));
  if (registry.startsWith(OCI_LAYOUT_PREFIX)) {
    const layout = new LayoutStore(resolve(options.cwd, registry.slice(OCI_LAYOUT_PREFIX.length)), notice);
    return withRecovery(layout, {
      journalDir: journalDirOf({ layoutRoot: layout.root, projectDir: options.cwd }),
      temporaryDirs: () => layout.temporaryDirs(),
      notice,
    });
  }
  const store = new RegistryStore({
    registry,
    env: options.env,
    insecure: options.insecure ?? [],
    ...timeoutOf(options),
  });
  return withRecovery(store, { journalDir: journalDirOf({ registry, projectDir: options.cwd }), notice });
}

/**
 * The store the configuration names, opened the way every command opens it: relative layout
 * paths against the config file's directory, and the config's insecure-registry list.
 */
export function openConfiguredStore(ctx: {
  config: { registry: string; insecureRegistries: string[] };
  configDir: string;
  env: Record<string, string | undefined>;
}): ImageStore {
  return openStore(ctx.config.registry, {
    cwd: ctx.configDir,
    env: ctx.env,
    insecure: ctx.config.insecureRegistries,
  });
}

/**
 * The deadline of each registry request: the caller's, else `RELEASE_REGISTRY_TIMEOUT` (seconds,
 * for a slow link or a test of a stalling registry), else the store's default (30 s).
 */
function timeoutOf(options: OpenStoreOptions): { timeoutMs?: number } {
  if (options.timeoutMs) return { timeoutMs: options.timeoutMs };
  const text = options.env['RELEASE_REGISTRY_TIMEOUT'];
  if (text === undefined || text === '') return {};
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400)
    throw new UsageError(
      'REGISTRY_TIMEOUT_INVALID',
      `RELEASE_REGISTRY_TIMEOUT="${printable(text)}" is not a number of seconds`,
      {
        hint: 'set it to the seconds each registry request may take, e.g. RELEASE_REGISTRY_TIMEOUT=120',
      },
    );
  return { timeoutMs: Math.round(seconds * 1000) };
}
