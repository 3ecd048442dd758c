/**
 * Which build args carry the service's version (`versionVariables` of the config): `ARG
 * <NAME>_VERSION` and client variables (`VITE_`, `REACT_APP_`, `NEXT_PUBLIC_`) with VERSION in the
 * name. An arg whose default pins a version (`ARG TURBO_VERSION=2.9.4`) is a tool's version, not
 * the service's, and is left out, saying so. A name both a web image and a server image read is a
 * server name (see below). An arg that picks the image a stage starts FROM (`FROM
 * golang:${GO_VERSION}`), or is named for a toolchain (`NODE_VERSION`, `PYTHON_VERSION`), is the
 * toolchain's version: setting it to the release's would change the base image. Pure.
 */
export interface VersionVariables {
  server: string[];
  client: string[];
  /** `NAME=default`: left out, a pinned tool version. */
  pinned: string[];
  /** Read by a web image and by another: kept as a server variable only. */
  shared: string[];
  /** A toolchain's or base image's version (`GO_VERSION`), with why: left out. */
  toolchain: { name: string; why: string }[];
}

// `<TOOL>_VERSION` of the toolchains and bases Dockerfiles pin: a build tool's version, never the
// service's, whatever its default.
const TOOLCHAINS = new Set(
  (
    'GO GOLANG NODE NODEJS NPM PNPM YARN BUN DENO PYTHON PIP POETRY UV PDM RUST CARGO JAVA JDK JRE ' +
    'GRADLE MAVEN KOTLIN RUBY BUNDLER PHP COMPOSER DOTNET ELIXIR ERLANG OTP ALPINE DEBIAN UBUNTU ' +
    'DISTROLESS NGINX CADDY S6_OVERLAY TINI GOSU PROTOC PROTOBUF BUF SQLC TURBO NX CHROME CHROMIUM ' +
    'PLAYWRIGHT PUPPETEER LIBVIPS FFMPEG POSTGRES PG MYSQL REDIS ZIG CLANG LLVM GCC CMAKE'
  ).split(' '),
);

const CLIENT_PREFIXES = ['VITE_', 'REACT_APP_', 'NEXT_PUBLIC_'];
// The names release build sets itself.
const STANDARD = new Set(['SERVICE_VERSION', 'SERVICE_CLIENT_VERSION']);

export function versionVariables(
  args: readonly { name: string; default?: string; web?: boolean; setByCi?: boolean; base?: boolean }[],
): VersionVariables {
  const out: VersionVariables = { server: [], client: [], pinned: [], shared: [], toolchain: [] };
  const toolchain = (name: string, why: string) => {
    if (!out.toolchain.some((t) => t.name === name)) out.toolchain.push({ name, why });
  };
  // A build arg the repository's CI sets to the version carries it, whatever its name or default.
  for (const arg of args) {
    if (!arg.setByCi || STANDARD.has(arg.name)) continue;
    const list = CLIENT_PREFIXES.some((p) => arg.name.startsWith(p)) || arg.web ? out.client : out.server;
    if (!list.includes(arg.name)) list.push(arg.name);
  }
  const setByCi = new Set([...out.server, ...out.client]);
  // A name that picks a base in one Dockerfile is a toolchain's in every other too.
  const bases = new Set(args.filter((a) => a.base).map((a) => a.name));
  for (const arg of args) {
    // Placed by the CI above; any other name by every image that reads it (a server and a web
    // image both: shared, below), whichever comes first.
    if (arg.setByCi || setByCi.has(arg.name)) continue;
    if (STANDARD.has(arg.name) || !arg.name.toUpperCase().includes('VERSION')) continue;
    const client = CLIENT_PREFIXES.some((p) => arg.name.startsWith(p));
    if (!client && !arg.name.endsWith('_VERSION')) continue;
    if (
      arg.default !== undefined &&
      arg.default.length <= 64 &&
      /^v?\d+(?:\.\d+)*(?:[-+.][\w.-]*)?$/.test(arg.default)
    ) {
      if (!out.pinned.includes(`${arg.name}=${arg.default}`)) out.pinned.push(`${arg.name}=${arg.default}`);
      continue;
    }
    if (!client && bases.has(arg.name)) {
      toolchain(arg.name, 'it picks the image a stage starts FROM');
      continue;
    }
    if (!client && TOOLCHAINS.has(arg.name.slice(0, -'_VERSION'.length))) {
      toolchain(arg.name, "a toolchain's version, by its name");
      continue;
    }
    const list = client || arg.web ? out.client : out.server;
    if (!list.includes(arg.name)) list.push(arg.name);
  }
  // A name is either a server or a client variable (the config refuses both). Server names reach
  // every image's build args, the web image's too, so one a server image also reads stays a server
  // name: the web image still gets the version in it.
  out.shared = out.client.filter((name) => out.server.includes(name));
  out.client = out.client.filter((name) => !out.shared.includes(name));
  return out;
}
