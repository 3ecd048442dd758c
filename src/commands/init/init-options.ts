import type { GlobalOptions } from '../command-context.ts';

/** `release init`'s flags (init-command.ts declares them, run-init.ts reads them). */
export interface InitOptions extends GlobalOptions {
  yes?: boolean;
  force?: boolean;
  format?: 'ts' | 'json';
  ci?: 'auto' | 'github' | 'gitlab' | 'none';
  registry?: string;
  name?: string;
  composeFile?: string[];
  lookIn?: string[];
}
