import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fixtureProject, TOOLKIT_ROOT } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';

// The GitHub Action (action.yml) run as the runner runs a JavaScript action: `node <main>` with
// the inputs as INPUT_* variables, GITHUB_WORKSPACE, and the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// files, on a fixture project with service-release installed (node_modules/.bin/release, as
// npm ci leaves it). stamp, then a real daemonless build: the outputs and the summary's table.

const repos: GitRepo[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const action = parse(readFileSync(join(TOOLKIT_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
};

/** Run the Action once: returns the exit code, the outputs it set and the summary it wrote. */
function runAction(workspace: string, inputs: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'action-files-'));
  dirs.push(dir);
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
  writeFileSync(files.GITHUB_OUTPUT, '');
  writeFileSync(files.GITHUB_STEP_SUMMARY, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    CI: 'true',
    GITHUB_WORKSPACE: workspace,
    ...files,
  };
  // The runner's naming: every declared input, upper-cased, dashes kept; defaults when not given.
  for (const [name, spec] of Object.entries(action.inputs))
    env[`INPUT_${name.toUpperCase()}`] = inputs[name] ?? String((spec as { default?: string }).default ?? '');
  const result = spawnSync(process.execPath, [join(TOOLKIT_ROOT, action.runs.main)], {
    cwd: workspace,
    env,
    encoding: 'utf8',
    timeout: 180_000,
  });
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    outputs: readOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8')),
    summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
  };
}

/** `$GITHUB_OUTPUT` as the runner reads it: `name=value` lines and `name<<DELIM` blocks. */
function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([\w-]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}

describe('the GitHub Action, run as the runner runs it', () => {
  it('declares node24, the built entry, and the inputs and outputs it reads and sets', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist-action/index.js' });
    expect(Object.keys(action.inputs).sort()).toEqual(['args', 'command', 'version', 'working-directory']);
    expect(Object.keys(action.outputs).sort()).toEqual(['channel', 'digests', 'version']);
  });

  it('stamp then build on a fixture project: version, channel and digests, and the release table', () => {
    const repo = fixtureProject('acme-oci');
    repos.push(repo);
    spawnSync('mkdir', ['-p', join(repo.dir, 'node_modules/.bin')]);
    symlinkSync(join(TOOLKIT_ROOT, 'bin/release.js'), join(repo.dir, 'node_modules/.bin/release'));
    repo.commit('project');
    repo.annotatedTag('v1.0.0-rc.1');

    const stamp = runAction(repo.dir, { command: 'stamp' });
    expect(stamp.code, stamp.stderr).toBe(0);
    expect(stamp.outputs['version']).toBe('v1.0.0-rc.1');
    expect(stamp.outputs['channel']).toBe('rc');
    expect(stamp.summary).toContain('### release stamp: done');
    expect(stamp.summary).toContain('Version **v1.0.0-rc.1**, channel **rc**.');

    const build = runAction(repo.dir, { command: 'build', args: '--engine oci' });
    expect(build.code, build.stderr).toBe(0);
    const digests = JSON.parse(build.outputs['digests']!) as Record<string, string>;
    expect(Object.keys(digests).sort()).toEqual(['api', 'web', 'worker']);
    for (const digest of Object.values(digests)) expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(build.outputs['version']).toBe('v1.0.0-rc.1');
    expect(build.summary).toContain('| artifact | role | image | digest |');
    expect(build.summary).toContain(`| api | api |`);
    expect(build.summary).toContain(digests['api']!);
  });

  it('runs in the working-directory input, relative to the workspace', () => {
    const repo = fixtureProject('acme-oci');
    repos.push(repo);
    spawnSync('mkdir', ['-p', join(repo.dir, 'node_modules/.bin')]);
    symlinkSync(join(TOOLKIT_ROOT, 'bin/release.js'), join(repo.dir, 'node_modules/.bin/release'));
    repo.commit('project');
    repo.annotatedTag('v2.0.0');
    const workspace = join(repo.dir, '..');
    const stamp = runAction(workspace, { command: 'stamp', 'working-directory': repo.dir.split('/').pop()! });
    expect(stamp.code, stamp.stderr).toBe(0);
    expect(stamp.outputs['version']).toBe('v2.0.0');
    expect(stamp.outputs['channel']).toBe('release');
    expect(stamp.outputs['digests']).toBe('{}');
  });

  it('refuses a command that is not one, with an annotation and exit 2; a failing command fails the step', () => {
    const repo = fixtureProject('acme-oci');
    repos.push(repo);
    const bad = runAction(repo.dir, { command: 'stamp; rm -rf /' });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/^::error::input command "stamp; rm -rf \/" is not a release command/m);
    spawnSync('mkdir', ['-p', join(repo.dir, 'node_modules/.bin')]);
    symlinkSync(join(TOOLKIT_ROOT, 'bin/release.js'), join(repo.dir, 'node_modules/.bin/release'));
    const failed = runAction(repo.dir, { command: 'promote', args: '--channel nightly' });
    expect(failed.code).toBe(2);
    expect(failed.stdout).toContain('::error::release promote exited with 2');
    expect(failed.summary).toContain('### release promote: failed (exit 2)');
  });

  it('an argument with a newline and a workflow command: no line the runner reads as a command', () => {
    const repo = fixtureProject('acme-oci');
    repos.push(repo);
    spawnSync('mkdir', ['-p', join(repo.dir, 'node_modules/.bin')]);
    symlinkSync(join(TOOLKIT_ROOT, 'bin/release.js'), join(repo.dir, 'node_modules/.bin/release'));
    const injected = [
      '::warning::owned',
      '::add-mask::secret',
      '::set-env name=NODE_OPTIONS::--require /tmp/x',
    ];
    for (const command of injected) {
      const cases = [
        { command: 'promote', args: `--channel dev "--from-x\n${command}"` }, // commander repeats it
        { command: 'build', args: `--engine "oci\n${command}"` }, // a bad choice, named
      ];
      for (const { command: name, args } of cases) {
        const run = runAction(repo.dir, { command: name, args });
        expect(run.code, args).toBe(2);
        // The toolkit's own lines, even without the pause: nothing starts a command.
        for (const line of run.stderr.split('\n'))
          expect(line.trimStart().startsWith('::'), line).toBe(false);
        expect(run.stderr).toContain('\\u003a:');
        // And the runner is told to read no command while the toolkit runs.
        expect(commandsRead(run.stdout + run.stderr)).toEqual(['error']);
      }
    }
  });
});

/**
 * The workflow commands GitHub's runner would act on in `log`, read as it reads them: a line whose
 * first non-blank characters are `::`, none between `::stop-commands::<token>` and `::<token>::`.
 * The stop and resume themselves are left out.
 */
function commandsRead(log: string): string[] {
  const commands: string[] = [];
  let paused: string | undefined;
  for (const raw of log.split('\n')) {
    const line = raw.trimStart();
    if (!line.startsWith('::')) continue;
    const name = line.slice(2, line.indexOf('::', 2)).split(' ')[0]!;
    if (paused !== undefined) {
      if (name === paused) paused = undefined;
      continue;
    }
    if (name === 'stop-commands') paused = line.slice(line.indexOf('::', 2) + 2);
    else commands.push(name);
  }
  return commands;
}
