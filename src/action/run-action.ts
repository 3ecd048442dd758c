import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { printableLines } from '../text/printable.ts';
import { readInputs } from './action-inputs.ts';
import { actionOutputs, jobSummary, type RunFacts } from './job-summary.ts';

/**
 * The GitHub Action (action.yml, `runs.using: node24`): run one `release` command in the
 * project, then set the step's outputs and write its job summary. The toolkit that runs is the
 * project's own (`node_modules/.bin/release`, as `npm ci` installs it), so the Action and the
 * project's scripts never disagree; `version` runs that release of service-release instead, and
 * with neither the Action's own version is fetched with `npm exec`. Returns the exit code.
 */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const inputs = readInputs(env);
  if ('error' in inputs) {
    process.stdout.write(`::error::${inputs.error}\n`);
    return 2;
  }
  const cwd = resolve(env['GITHUB_WORKSPACE'] ?? process.cwd(), inputs.workingDirectory);
  const args = [inputs.command, ...inputs.args, ...(inputs.args.includes('--json') ? [] : ['--json'])];
  const { file, argv } = toolkit(cwd, inputs.version, args);
  // While the command runs, the runner reads no workflow command from the log: whatever the
  // command prints (a file name, a registry's answer, an argument with a newline in it) cannot
  // mask, set or warn. The token is unguessable, so the output cannot end the pause itself.
  const pause = randomBytes(16).toString('hex');
  process.stdout.write(`::stop-commands::${pause}\n`);
  const { code, stdout } = await run(file, argv, cwd, env);
  process.stdout.write(`::${pause}::\n`);
  const facts: RunFacts = { command: inputs.command, exitCode: code };
  const document = lastJson(stdout);
  if (document) facts.document = document;
  const record = readRecord(cwd);
  if (record) facts.record = record;
  const outputs = actionOutputs(facts);
  if (env['GITHUB_OUTPUT'])
    appendFileSync(
      env['GITHUB_OUTPUT'],
      Object.entries(outputs)
        .map(([k, v]) => output(k, v))
        .join(''),
    );
  if (env['GITHUB_STEP_SUMMARY']) appendFileSync(env['GITHUB_STEP_SUMMARY'], jobSummary(facts, outputs));
  if (code !== 0) process.stdout.write(`::error::release ${inputs.command} exited with ${code}\n`);
  return code;
}

function toolkit(cwd: string, version: string | undefined, args: string[]): { file: string; argv: string[] } {
  const local = join(cwd, 'node_modules/.bin/release');
  if (!version && existsSync(local))
    return { file: process.execPath, argv: ['--', realpathSync(local), ...args] };
  const own = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return {
    file: npm,
    argv: ['exec', '--yes', `--package=service-release@${version ?? own.version}`, '--', 'release', ...args],
  };
}

/** Run it with its output passed through (the log shows it) and stdout kept for the outputs. */
function run(
  file: string,
  argv: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string }> {
  return new Promise((done) => {
    const child = spawn(file, argv, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      // Keep the last 8 MB: the document is printed last.
      chunks.push(chunk);
      size += chunk.length;
      while (size > 8 * 1024 * 1024 && chunks.length > 1) size -= chunks.shift()!.length;
    });
    child.on('error', (error) => {
      process.stdout.write(`could not start ${file}: ${printableLines(error.message)}\n`);
      done({ code: 3, stdout: '' });
    });
    child.on('close', (code, signal) =>
      done({
        code: code ?? (signal === 'SIGINT' ? 130 : 143),
        stdout: Buffer.concat(chunks).toString('utf8'),
      }),
    );
  });
}

/** The `--json` document: the whole output, or its last line that is one. */
function lastJson(stdout: string): Record<string, unknown> | undefined {
  const attempts = [stdout, ...stdout.trimEnd().split('\n').reverse().slice(0, 5)];
  for (const text of attempts) {
    try {
      const value = JSON.parse(text) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function readRecord(cwd: string): RunFacts['record'] | undefined {
  try {
    const path = join(cwd, 'dist/release.json');
    return JSON.parse(readFileSync(path, 'utf8')) as RunFacts['record'];
  } catch {
    return undefined;
  }
}

/** One `$GITHUB_OUTPUT` entry in the delimiter form, safe for any value. */
function output(name: string, value: string): string {
  const delimiter = `ghadelimiter_${randomBytes(12).toString('hex')}`;
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}
