import { join } from 'node:path';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { svcEnv } from './rehearse-cli-steps.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { releaseJson } from './release-json.ts';

interface VerifyJson {
  inStep: boolean;
  artifacts: { name: string; version?: string; status: string }[];
  findings: { code: string; message: string }[];
  provenance?: {
    artifact: string;
    imageVersion?: string;
    codeLayers?: { equal: boolean };
    restampMatches?: boolean;
  }[];
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
          // The CI template's check after a release: everything reports the release's own tag, and
          // each image is the signed rc's code re-stamped.
          ...['--expect', REHEARSAL.releaseTag, '--registry'],
        ],
        { cwd: ctx.repo!, env, allowExits: [0, 1] },
      );
      if (!json.inStep) {
        const findings = json.findings.map((f) => `${f.code}: ${f.message}`).join('\n');
        throw new RuleError('REHEARSAL_NOT_IN_STEP', `release verify found drift:\n${findings}`);
      }
      const images = (json.provenance ?? []).map(
        (p) =>
          `${p.artifact} image ${p.imageVersion ?? '?'}${p.codeLayers?.equal && p.restampMatches ? ' = rc code' : ''}`,
      );
      ctx.notes[title] =
        `in step at ${REHEARSAL.releaseTag}: ${json.artifacts.map((a) => `${a.name} ${a.version ?? '?'}`).join(', ')}; ${images.join(', ')}`;
    },
  };
}
