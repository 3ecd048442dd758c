import { listNodes, listTasks } from '../../../deployment-engines/swarm/swarm.ts';
import type { Step } from '../../../pipeline/step.ts';
import { nodeReport } from '../../../upgrade/swarm/swarm-node-report.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';

/**
 * The cluster per node, once everything is done (upgraded or rolled back): which node runs what
 * of the deployment, which is lost, what could not be placed. The report shows it when something
 * needs a person's eye; `--json` always carries it.
 */
export const readSwarmNodesStep: Step<SwarmUpgradeContext> = {
  title: 'Read the cluster per node',
  skip: (ctx) => (ctx.running?.length ? false : 'no service was read'),
  async run(ctx) {
    const nodes = await listNodes(ctx.docker);
    const tasks = await Promise.all(
      ctx.running!.map(async (s) =>
        (await listTasks(ctx.docker, s.id)).map((task) => ({ service: s.name, task })),
      ),
    );
    ctx.nodes = nodeReport(nodes, tasks.flat());
  },
};
