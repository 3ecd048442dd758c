import { COMMANDS } from './commands/index.ts';

export function helpText(): string {
  // Short usages share a column; a long one gets its summary on the next line.
  const commands = Object.values(COMMANDS).map((c) =>
    c.usage.length > 19
      ? `  ${c.usage}\n${' '.repeat(23)}${c.summary}`
      : `  ${c.usage.padEnd(19)}  ${c.summary}`,
  );
  return `usage: svc [--url <base_url>] <command> [options]

The service's command-line client. Before every command except --help, --version, update,
doctor and config, svc checks that it is not older than the API's minimum CLI version.

commands:
${commands.join('\n')}

options:
  --url <base_url>   the API to use (else SERVICE_API_URL, else \`svc config set-url\`)
  -V, --version      print "svc <version>" and exit (no network)
  -h, --help         print this help

environment:
  SERVICE_API_URL               the API base URL when --url is not given
  SVC_VERSION_CHECK_TIMEOUT_MS  total deadline of the compatibility check (default 3000)
  SVC_VERSION_GATE=warn         legacy warn-only check: warn below the minimum and run anyway
  SVC_NO_NOTICE=1               never show the "server is newer" notice

exit codes: 0 ok; 1 doctor found problems or an update did not take effect; 2 usage or
configuration error; 3 blocked by the compatibility gate, or the API or npm failed; 70 a bug.`;
}
