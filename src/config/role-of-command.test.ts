import { describe, expect, it } from 'vitest';
import { commandWords } from '../text/command-words.ts';
import { roleCommands, roleOfCommand } from './role-of-command.ts';
import { validateConfig } from './validate.ts';

// Shapes taken from real self-hosted services: Sentry runs `run web`, `run worker`, `run cron`
// behind its entrypoint script; Mattermost's jobserver is `mattermost jobserver` beside the
// image's default `mattermost`; a Python service runs its default (uvicorn) and `celery ... beat`.
describe('roleOfCommand', () => {
  const config = validateConfig(
    {
      artifacts: {
        api: { image: 'app', context: '.' },
        worker: { image: 'app', command: ['celery', '-A', 'acme', 'worker'] },
        scheduler: { role: 'worker', image: 'app', command: ['celery', '-A', 'acme', 'beat'] },
        beat: { role: 'worker', image: 'app', command: ['celery'] },
        web: false,
      },
    },
    'x',
  );
  const roles = roleCommands(config, 'app');
  const of = (argv: string[]) => roleOfCommand(argv, roles)?.artifact;

  it('finds the role whose command is a run of the argv, the longest first', () => {
    expect(of(['/entrypoint.sh', 'celery', '-A', 'acme', 'worker', '-l', 'info'])).toBe('worker');
    expect(of(['celery', '-A', 'acme', 'beat'])).toBe('scheduler');
    expect(of(['celery', 'flower'])).toBe('beat');
  });

  it('gives the rest to the one role without a command, and a lone role everything', () => {
    expect(of(['uvicorn', 'acme.asgi:app'])).toBe('api');
    // A run, not scattered words: `celery -A other worker` is not `celery -A acme worker`.
    expect(of(['celery', '-A', 'other', 'worker'])).toBe('beat');
    const one = validateConfig({ artifacts: { worker: { image: 'w' } } }, 'x');
    expect(roleOfCommand(['anything'], roleCommands(one, 'w'))?.artifact).toBe('worker');
  });

  it('leaves a container no declared role runs unattributed', () => {
    const sentry = validateConfig(
      {
        artifacts: {
          api: { image: 'sentry', command: ['run', 'web'], context: '.' },
          worker: { image: 'sentry', command: ['run', 'worker'] },
          cron: { role: 'worker', image: 'sentry', command: ['run', 'cron'] },
          web: false,
        },
      },
      'x',
    );
    const r = roleCommands(sentry, 'sentry');
    expect(roleOfCommand(['/etc/sentry/entrypoint.sh', 'run', 'cron'], r)?.artifact).toBe('cron');
    expect(roleOfCommand(['/etc/sentry/entrypoint.sh', 'upgrade'], r)).toBeUndefined();
  });

  it("reads NetBox's compose shape: tini and the entrypoint script before the command, full paths", () => {
    // netbox-docker: the app's default CMD serves the UI and API; netbox-worker and housekeeping
    // run `command:` lists of full paths (the image's ENTRYPOINT is tini).
    const netbox = validateConfig(
      {
        artifacts: {
          api: { image: 'netbox', context: '.' },
          worker: { image: 'netbox', command: ['/opt/netbox/netbox/manage.py', 'rqworker'] },
          housekeeping: { role: 'worker', image: 'netbox', command: ['/opt/netbox/housekeeping.sh'] },
          web: false,
        },
      },
      'x',
    );
    const r = roleCommands(netbox, 'netbox');
    const tini = ['/usr/bin/tini', '--'];
    expect(
      roleOfCommand([...tini, '/opt/netbox/docker-entrypoint.sh', '/opt/netbox/launch-netbox.sh'], r)
        ?.artifact,
    ).toBe('api');
    expect(
      roleOfCommand(
        [
          ...tini,
          '/opt/netbox/venv/bin/python',
          '/opt/netbox/netbox/manage.py',
          'rqworker',
          'high',
          'default',
          'low',
        ],
        r,
      )?.artifact,
    ).toBe('worker');
    expect(roleOfCommand([...tini, '/opt/netbox/housekeeping.sh'], r)?.artifact).toBe('housekeeping');
  });
});

describe('roleOfCommand through shells and init processes', () => {
  const config = validateConfig(
    {
      artifacts: {
        api: { image: 'shop', context: '.' },
        migrate: { role: 'worker', image: 'shop', command: ['pnpm', 'exec', 'prisma', 'migrate', 'deploy'] },
        worker: { image: 'shop', command: ['sh', '-c', 'node dist/worker.js'] },
        web: false,
      },
    },
    'x',
  );
  const r = roleCommands(config, 'shop');
  it.each([
    ['sh', '-c', 'pnpm exec prisma migrate deploy'],
    ['/sbin/tini', '--', '/bin/sh', '-c', 'exec pnpm exec prisma migrate deploy'],
    ['docker-entrypoint.sh', 'pnpm', 'exec', 'prisma', 'migrate', 'deploy'],
  ])('finds the migration in %s …', (...argv) => {
    expect(roleOfCommand(argv, r)?.artifact).toBe('migrate');
  });
  it('reads a string as Compose splits it, and a role declared under sh -c as its command', () => {
    expect(roleOfCommand('sh -c "pnpm exec prisma migrate deploy"', r)?.artifact).toBe('migrate');
    expect(roleOfCommand(['dumb-init', '--', 'node', 'dist/worker.js'], r)?.artifact).toBe('worker');
    expect(roleOfCommand(['node', 'dist/main.js'], r)?.artifact).toBe('api');
  });
});

// Shapes of real compose files tried by hand. An analytics service runs its migrations and then
// its server from one `sh -c` chain (`sleep 10 && /entrypoint.sh db migrate && /entrypoint.sh run`),
// beside a migration job run on its own; an error tracker puts its entrypoint script in
// `entrypoint:` as a string and its roles in `command:` (a list for the default, long strings with
// `${…}` defaults for each consumer).
describe('roleOfCommand on a chain that ends in the server, and an entrypoint string', () => {
  const chain = validateConfig(
    {
      artifacts: {
        api: { image: 'analytics', context: '.', command: ['/entrypoint.sh', 'run'] },
        migrate: { role: 'job', image: 'analytics', command: ['/entrypoint.sh', 'db', 'migrate'] },
        web: false,
        worker: false,
      },
    },
    'x',
  );
  const r = roleCommands(chain, 'analytics');
  it.each([
    [
      'the server after its migrations',
      'sh -c "sleep 10 && /entrypoint.sh db createdb && /entrypoint.sh db migrate && /entrypoint.sh run"',
      'api',
    ],
    [
      'the migration on its own',
      'sh -c "/entrypoint.sh db createdb && /entrypoint.sh db migrate"',
      'migrate',
    ],
    [
      'the migration, the server run after it in `;`',
      ['/bin/sh', '-c', '/entrypoint.sh db migrate; exec /entrypoint.sh run'],
      'api',
    ],
    ['the migration as a list', ['/entrypoint.sh', 'db', 'migrate'], 'migrate'],
    [
      'a multi-line block scalar ending in the server',
      'sh -c "\n  /entrypoint.sh db migrate &&\n  /entrypoint.sh run\n"',
      'api',
    ],
  ] as [string, string | string[], string][])('%s', (_case, argv, artifact) => {
    expect(roleOfCommand(argv, r)?.artifact).toBe(artifact);
  });

  const tracker = validateConfig(
    {
      artifacts: {
        api: { image: 'tracker', context: '.', command: ['run', 'web'] },
        worker: { image: 'tracker', command: ['run', 'taskworker'] },
        scheduler: { role: 'worker', image: 'tracker', command: ['run', 'taskworker-scheduler'] },
        consumer: { role: 'worker', image: 'tracker', command: ['run', 'consumer'] },
        web: false,
      },
    },
    'x',
  );
  const t = roleCommands(tracker, 'tracker');
  const withEntrypoint = (command: string | string[]) => [
    ...commandWords('/etc/tracker/entrypoint.sh'),
    ...commandWords(command),
  ];
  it.each([
    [['run', 'web'], 'api'],
    ['run taskworker --concurrency=$TASKWORKER_CONCURRENCY --rpc-host=taskbroker:50051', 'worker'],
    ['run taskworker-scheduler', 'scheduler'],
    ['run consumer ingest-events --consumer-group ingest-consumer --max-poll-interval-ms 300000', 'consumer'],
  ] as [string | string[], string][])('behind an entrypoint string: %s', (command, artifact) => {
    expect(roleOfCommand(withEntrypoint(command), t)?.artifact).toBe(artifact);
  });
  it('leaves a cron line handed to a scheduler script as one quoted word unattributed', () => {
    // `command: '"0 0 * * * gosu tracker tracker cleanup --days 90"'`: one word, a crontab line.
    expect(roleOfCommand(withEntrypoint('"0 0 * * * gosu tracker tracker cleanup --days 90"'), t)).toBe(
      undefined,
    );
  });
});
