import { join } from 'node:path';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { svcEnv } from './rehearse-cli-steps.ts';
import type { RehearseContext } from './rehearse-context.ts';
import { releaseJson } from './release-json.ts';

interface VerifyJson {
  inStep: boolean;
  artifacts: { name: string; version?: string; status: string }[];
  findings: { code: string; message: string }[];
}

/** `release verify` against the running deployment, with the given CLI prefix on PATH. */
export function rehearseVerifyStep(title: string, cliPrefix: string): Step<RehearseContext> {
  return {
    title,
    async run(ctx) {
      const env = await svcEnv(ctx, join(ctx.workspace!, cliPrefix));
      const { urls } = ctx;
      // Exit 1 (drift) still prints the report: read it and say what drifted.
      const { json } = await releaseJson<VerifyJson>(
        [
          'verify',
          ...['--url', urls!.api, '--web-url', urls!.web],
          // With Docker the worker is read from the engine (image, env, label), as an operator would.
          ...(ctx.engine === 'docker' ? ['--docker'] : ['--worker-url', urls!.workerHealth]),
        ],
        { cwd: ctx.repo!, env, allowExits: [0, 1] },
      );
      if (!json.inStep) {
        const findings = json.findings.map((f) => `${f.code}: ${f.message}`).join('\n');
        throw new RuleError('REHEARSAL_NOT_IN_STEP', `release verify found drift:\n${findings}`);
      }
      ctx.notes[title] = `in step: ${json.artifacts.map((a) => `${a.name} ${a.version ?? '?'}`).join(', ')}`;
    },
  };
}
