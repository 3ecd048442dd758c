import type { SvcConfig } from './config/config-file.ts';
import type { GateDecision } from './gate/decide.ts';

type Env = Record<string, string | undefined>;

/** What every command is handed: parsed flags, the environment and the user's settings. */
export interface SvcContext {
  cliVersion: string;
  env: Env;
  config: SvcConfig;
  configPath: string;
  /** Arguments after the command name. */
  operands: string[];
  url: string | undefined;
  json: boolean;
  dryRun: boolean;
  /** `svc update --insecure-skip-signature`. */
  skipSignature: boolean;
}

/** A gated command runs after the gate let it through and may reuse what the gate learnt. */
export interface GatedRun {
  baseUrl: string;
  gate: GateDecision;
  /**
   * One total deadline (`performance.now()` time) for the gate and the command's own requests:
   * against a stalled server the user waits one timeout, not the gate's and then the command's.
   */
  deadline: number;
  timeoutMs: number;
}

export type CommandRunner = (ctx: SvcContext, gated: GatedRun | undefined) => Promise<number>;
