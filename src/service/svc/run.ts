import { UsageError } from '../../errors.ts';
import { COMMANDS } from './commands/index.ts';
import { readSvcConfig } from './config/config-file.ts';
import { configFilePath, stateDir } from './config/paths.ts';
import { requireApi, selectGateMode, selectTimeout } from './config/select-api.ts';
import type { GatedRun, SvcContext } from './context.ts';
import { checkCliCompatibility } from './gate/check.ts';
import { firstTimeFor, noticeWanted } from './gate/notice-memory.ts';
import { helpText } from './help.ts';
import { out, reportError, say } from './output.ts';
import { parseSvcArgs } from './parse-args.ts';
import { SVC_VERSION } from './version.ts';

/** Exit code when the gate refuses to run a command (DESIGN.md "Exit codes"). */
export const EXIT_BLOCKED = 3;

/**
 * Everything after the `--version` short-circuit in main.ts. Returns the exit code; the only
 * place svc's errors become exit codes.
 */
export async function main(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const json = args.includes('--json');
  try {
    const parsed = parseSvcArgs(args);
    const [name, ...operands] = parsed.positionals;
    if (parsed.help || name === 'help') {
      out(helpText());
      return 0;
    }
    if (!name) {
      process.stderr.write(`${helpText()}\n`);
      return 2;
    }
    const command = COMMANDS[name];
    if (!command) {
      throw new UsageError('UNKNOWN_COMMAND', `unknown command "${name}"`, {
        hint: `one of: ${Object.keys(COMMANDS).join(', ')} (svc --help)`,
      });
    }
    const given = {
      json: parsed.json,
      'dry-run': parsed.dryRun,
      'insecure-skip-signature': parsed.skipSignature,
    };
    for (const flag of ['json', 'dry-run', 'insecure-skip-signature'] as const) {
      if (given[flag] && !command.flags.includes(flag)) {
        throw new UsageError('UNKNOWN_OPTION', `svc ${name} does not take --${flag}`, {
          hint: `usage: svc ${command.usage}`,
        });
      }
    }
    const configPath = configFilePath(env);
    const ctx: SvcContext = {
      cliVersion: SVC_VERSION,
      env,
      config: await readSvcConfig(configPath),
      configPath,
      operands,
      url: parsed.url,
      json: parsed.json,
      dryRun: parsed.dryRun,
      skipSignature: parsed.skipSignature,
    };
    // Load the command while the gate waits for the server: the wait is otherwise idle time.
    const runner = command.load();
    let gated: GatedRun | undefined;
    if (command.gated) {
      gated = await runGate(ctx);
      if (!gated.gate.run) return EXIT_BLOCKED;
    }
    return await (await runner)(ctx, gated);
  } catch (error) {
    return reportError(error, json);
  }
}

/** The compatibility gate: check, print what it says on stderr, show the soft notice at most once. */
async function runGate(ctx: SvcContext): Promise<GatedRun> {
  const { baseUrl } = requireApi(ctx.url, ctx.env, ctx.config);
  const timeoutMs = selectTimeout(ctx.env);
  const deadline = performance.now() + timeoutMs;
  const gate = await checkCliCompatibility({
    baseUrl,
    cliVersion: ctx.cliVersion,
    timeoutMs,
    mode: selectGateMode(ctx.env, ctx.config),
  });
  for (const message of gate.messages) say(message.level, message.text);
  if (gate.notice && noticeWanted(ctx.env, process.stderr.isTTY === true)) {
    if (await firstTimeFor(stateDir(ctx.env), gate.notice.key)) say('notice', gate.notice.text);
  }
  return { baseUrl, gate, deadline, timeoutMs };
}
