import type { CommandRunner } from '../context.ts';

export interface CommandDefinition {
  usage: string;
  summary: string;
  /** Flags this command accepts besides the global `--url`. */
  flags: ('json' | 'dry-run' | 'insecure-skip-signature')[];
  /**
   * Whether the compatibility gate runs first. Not for the remedies: `update` (the gate must not
   * block its own fix), `doctor` (it reports a too-old CLI as a finding) and `config` (local only,
   * and how a URL gets chosen in the first place).
   */
  gated: boolean;
  load: () => Promise<CommandRunner>;
}

/** Every svc command, in help order; each module is imported only when its command runs. */
export const COMMANDS: Record<string, CommandDefinition> = {
  status: {
    usage: 'status [--json]',
    summary: 'ask the API for its version (an ordinary command, behind the gate)',
    flags: ['json'],
    gated: true,
    load: async () => (await import('./status.ts')).runStatus,
  },
  version: {
    usage: 'version [--json]',
    summary: "this CLI's version, the server's version and minimum, and the verdict",
    flags: ['json'],
    gated: true,
    load: async () => (await import('./version.ts')).runVersion,
  },
  doctor: {
    usage: 'doctor [--json]',
    summary: 'look for known version problems and say how to fix each (exit 1 if any)',
    flags: ['json'],
    gated: false,
    load: async () => (await import('./doctor.ts')).runDoctor,
  },
  update: {
    usage: 'update [--dry-run] [--insecure-skip-signature]',
    summary: 'install the CLI archive the API serves, checked by signature (when signed), SHA-256 and length',
    flags: ['dry-run', 'insecure-skip-signature'],
    gated: false,
    load: async () => (await import('./update.ts')).runUpdate,
  },
  config: {
    usage: 'config set-url <base_url> | set-gate <hard|warn> | show',
    summary: 'remember the API base URL (and the gate mode) in your config file',
    flags: ['json'],
    gated: false,
    load: async () => (await import('./config.ts')).runConfig,
  },
};
