import { UsageError } from '../../../errors.ts';
import { readSvcConfig, updateSvcConfig } from '../config/config-file.ts';
import { normalizeBaseUrl } from '../config/select-api.ts';
import type { SvcContext } from '../context.ts';
import { out, outJson } from '../output.ts';

/** `svc config set-url <base_url> | set-gate <hard|warn> | show`. Never gated, never networked. */
export async function runConfig(ctx: SvcContext): Promise<number> {
  const [action, value, ...extra] = ctx.operands;
  if (extra.length) throw usage(`unexpected arguments: ${extra.join(' ')}`);
  switch (action) {
    case 'set-url': {
      if (!value) throw usage('svc config set-url needs the API base URL');
      const url = normalizeBaseUrl(value, 'set-url');
      await updateSvcConfig(ctx.configPath, { url });
      out(`API URL set to ${url} (in ${ctx.configPath})`);
      return 0;
    }
    case 'set-gate': {
      if (value !== 'hard' && value !== 'warn') throw usage('svc config set-gate takes "hard" or "warn"');
      await updateSvcConfig(ctx.configPath, { gate: value });
      out(`compatibility gate set to ${value} (in ${ctx.configPath})`);
      return 0;
    }
    case 'show': {
      if (value) throw usage(`unexpected argument: ${value}`);
      const config = await readSvcConfig(ctx.configPath);
      if (ctx.json) outJson({ path: ctx.configPath, ...config });
      else
        out(
          `${ctx.configPath}\n  url:  ${config.url ?? '(not set)'}\n  gate: ${config.gate ?? 'hard (default)'}`,
        );
      return 0;
    }
    default:
      throw usage(action ? `unknown config action "${action}"` : 'svc config needs an action');
  }
}

function usage(message: string): UsageError {
  return new UsageError('USAGE', message, {
    hint: 'svc config set-url <base_url> | set-gate <hard|warn> | show',
  });
}
