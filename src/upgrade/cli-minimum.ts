import { compareCore } from '../version/compare.ts';
import { parseCore } from '../version/parse.ts';

export interface CliMinimumChange {
  current: string;
  target: string;
  /** Every svc below `target` is blocked once the new API runs. */
  message: string;
  /** The pinned install command that brings a CLI to the target release. */
  install: string;
}

/**
 * Does the target raise `min_cli_version` above the one running? Then CLIs below the new minimum
 * will be blocked (spec section 7): say so before anything changes, with the pinned install
 * command. Undefined when either minimum is unknown or not strict X.Y.Z, or it does not rise.
 */
export function cliMinimumRaise(input: {
  current: string | undefined;
  target: string | undefined;
  tag: string;
  cliPackage: string;
}): CliMinimumChange | undefined {
  const current = input.current === undefined ? undefined : parseCore(input.current);
  const target = input.target === undefined ? undefined : parseCore(input.target);
  if (!current || !target || compareCore(target, current) <= 0) return undefined;
  const version = input.tag.replace(/^v/, '');
  return {
    current: input.current!,
    target: input.target!,
    message: `${input.tag} raises min_cli_version from ${input.current} to ${input.target}: every svc below ${input.target} will be blocked`,
    install: `npm install -g ${input.cliPackage}@${version}`,
  };
}
