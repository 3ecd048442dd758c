import type { ServiceRole, UpgradeFailure } from './deployment-types.ts';

/** How putting one service back went. */
export interface RestoreResult {
  role: ServiceRole;
  name: string;
  status: 'restored' | 'failed';
  /** Why it failed, or what it runs again. */
  detail: string;
}

/** The verify checks' verdict on the deployment, after the upgrade or after the rollback. */
export interface Proof {
  inStep: boolean;
  /** The tag the checks expected. */
  tag: string | undefined;
  /** One line per finding, when not in step. */
  findings: string[];
  /** An engine's nodes (a Swarm's) that were not `ready` when the checks ran: what they run is unknown. */
  lostNodes?: string[];
}

export interface UpgradeOutcome {
  status: 'upgraded' | 'up-to-date' | 'rolled-back' | 'rollback-failed';
  exitCode: 0 | 1 | 3;
  verdict: string;
}

/**
 * The verdict and exit code. 0: upgraded and proved in step on the target. 1: it failed and every
 * touched service is back on its previous spec, proved in step on the old tag (or exactly as out
 * of step as before: a rollback restores, it does not repair). 3: a service could not be put back,
 * or the deployment is not in step after the rollback although it was before.
 */
export function decideOutcome(input: {
  plan: { tag: string; upToDate: boolean };
  failure: UpgradeFailure | undefined;
  restores: RestoreResult[];
  proof: Proof | undefined;
  /** Whether the verify checks found the deployment in step before anything changed. */
  inStepBefore: boolean;
  fromTag: string | undefined;
}): UpgradeOutcome {
  const { plan, failure, restores, proof } = input;
  if (!failure) {
    if (plan.upToDate) {
      return {
        status: 'up-to-date',
        exitCode: 0,
        verdict: `already on ${plan.tag}: nothing to change, in step`,
      };
    }
    return { status: 'upgraded', exitCode: 0, verdict: `upgraded to ${plan.tag}: in step` };
  }
  const notBack = restores.filter((r) => r.status === 'failed');
  if (notBack.length > 0) {
    return {
      status: 'rollback-failed',
      exitCode: 3,
      verdict: `upgrade to ${plan.tag} failed and the rollback failed too: ${notBack.map((r) => `${r.name} (${r.role}) ${r.detail}`).join('; ')}`,
    };
  }
  const names = restores.map((r) => r.name).join(', ') || 'nothing (no service was changed)';
  if (proof?.inStep) {
    return {
      status: 'rolled-back',
      exitCode: 1,
      verdict: `upgrade to ${plan.tag} failed; rolled back ${names}: in step on ${proof.tag ?? input.fromTag ?? 'the previous tag'}`,
    };
  }
  // A node lost for good: everything the live nodes run is back and in step, and the only findings
  // are the lost node's (its tasks are unknown, never in step). The rollback did all it can; the
  // node is the operator's to bring back, and the report names it.
  const lost = proof?.lostNodes ?? [];
  const beyondLost = proof?.findings.filter((f) => !lost.some((node) => f.includes(node))) ?? [];
  if (proof && lost.length > 0 && beyondLost.length === 0) {
    return {
      status: 'rolled-back',
      exitCode: 1,
      verdict: `upgrade to ${plan.tag} failed; rolled back ${names}: in step on ${proof.tag ?? input.fromTag ?? 'the previous tag'} on every live node; ${lost.join(', ')} ${lost.length === 1 ? 'is' : 'are'} not ready: what ${lost.length === 1 ? 'it runs' : 'they run'} is unknown until ${lost.length === 1 ? 'it returns' : 'they return'}`,
    };
  }
  if (!input.inStepBefore) {
    return {
      status: 'rolled-back',
      exitCode: 1,
      verdict: `upgrade to ${plan.tag} failed; rolled back ${names} to their previous specs (not in step, as before the upgrade)`,
    };
  }
  return {
    status: 'rollback-failed',
    exitCode: 3,
    verdict: `upgrade to ${plan.tag} failed; rolled back ${names}, but the deployment is not in step on ${input.fromTag ?? 'the previous tag'}: ${proof?.findings.join('; ') ?? 'not checked'}`,
  };
}
