// Built by `npm run build:action` from src/action/: do not edit.

// src/action/run-action.ts
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";

// src/text/printable.ts
var UNSAFE_IN_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
function printableLines(text) {
  return text.replace(UNSAFE_IN_LINES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).replace(/^([^\S\n]*):(?=:)/gm, "$1\\u003a").replace(/#(?=#(?:vso)?\[)/g, "\\u0023");
}

// src/init/shell-words.ts
function shellWords(text) {
  const words = [];
  let parts = [];
  let inWord = false;
  let i = 0;
  const end = text.length;
  const flush = () => {
    if (inWord) words.push(parts.length === 1 ? parts[0] : parts.join(""));
    parts = [];
    inWord = false;
  };
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      flush();
      i++;
    } else if (c === 34 || c === 39) {
      inWord = true;
      let j = i + 1;
      let start = j;
      while (j < end && text.charCodeAt(j) !== c) {
        if (c === 34 && text.charCodeAt(j) === 92 && j + 1 < end) {
          parts.push(text.slice(start, j));
          start = j + 1;
          j += 2;
        } else j++;
      }
      parts.push(text.slice(start, j));
      i = j + 1;
    } else if (c === 92 && i + 1 < end) {
      inWord = true;
      parts.push(text[i + 1]);
      i += 2;
    } else {
      inWord = true;
      let j = i;
      while (j < end) {
        const d = text.charCodeAt(j);
        if (d === 32 || d === 9 || d === 10 || d === 13 || d === 34 || d === 39 || d === 92) break;
        j++;
      }
      parts.push(text.slice(i, j));
      i = j;
    }
  }
  flush();
  return words;
}

// src/action/action-inputs.ts
var COMMAND = /^[a-z][a-z-]{0,31}$/;
var VERSION = /^[0-9A-Za-z.+-]{1,64}$/;
function readInputs(env) {
  const input = (name) => (env[`INPUT_${name.toUpperCase()}`] ?? "").trim();
  const command = input("command");
  if (!COMMAND.test(command))
    return {
      error: `input command ${JSON.stringify(command)} is not a release command (stamp, build, promote, verify...)`
    };
  const version = input("version");
  if (version && !VERSION.test(version))
    return { error: `input version ${JSON.stringify(version)} is not a package version (1.2.3, latest)` };
  return {
    command,
    args: shellWords(input("args")),
    ...version ? { version } : {},
    workingDirectory: input("working-directory") || "."
  };
}

// src/action/job-summary.ts
function actionOutputs(facts) {
  const doc = facts.document ?? {};
  const text = (value) => typeof value === "string" ? value : "";
  const digests = {};
  for (const [name, entry] of Object.entries(facts.record?.artifacts ?? {}))
    if (entry.digest) digests[name] = entry.digest;
  const images = doc["images"];
  if (images && typeof images === "object") {
    for (const [name, entry] of Object.entries(images))
      if (typeof entry?.digest === "string") digests[name] = entry.digest;
  }
  return {
    version: text(doc["version"]) || text(facts.record?.version),
    channel: text(doc["channel"]) || text(facts.record?.channel),
    digests: JSON.stringify(digests)
  };
}
function jobSummary(facts, outputs) {
  const lines = [
    `### release ${facts.command}: ${facts.exitCode === 0 ? "done" : `failed (exit ${facts.exitCode})`}`,
    ""
  ];
  if (outputs.version)
    lines.push(`Version **${cell(outputs.version)}**, channel **${cell(outputs.channel || "none")}**.`, "");
  const digests = JSON.parse(outputs.digests);
  const artifacts = Object.entries(facts.record?.artifacts ?? {}).filter(([, a]) => a.repository);
  if (artifacts.length) {
    lines.push("| artifact | role | image | digest |", "|---|---|---|---|");
    for (const [name, a] of artifacts) {
      const reference = a.references?.[0] ?? a.repository ?? "";
      const digest = digests[name] ?? a.digest;
      lines.push(
        `| ${cell(name)} | ${cell(a.role ?? "")} | \`${cell(reference)}\` | ${digest ? `\`${cell(digest)}\`` : "not built"} |`
      );
    }
    lines.push("");
  }
  const warnings = facts.document?.["warnings"];
  if (Array.isArray(warnings) && warnings.length) {
    lines.push("Warnings:", "");
    for (const w of warnings) lines.push(`- ${cell(String(w))}`);
    lines.push("");
  }
  return `${lines.join("\n")}
`;
}
function cell(text) {
  return text.replace(/[|`\r\n]/g, " ").slice(0, 200);
}

// src/action/run-action.ts
async function runAction(env = process.env) {
  const inputs = readInputs(env);
  if ("error" in inputs) {
    process.stdout.write(`::error::${inputs.error}
`);
    return 2;
  }
  const cwd = resolve(env["GITHUB_WORKSPACE"] ?? process.cwd(), inputs.workingDirectory);
  const args = [inputs.command, ...inputs.args, ...inputs.args.includes("--json") ? [] : ["--json"]];
  const { file, argv } = toolkit(cwd, inputs.version, args);
  const pause = randomBytes(16).toString("hex");
  process.stdout.write(`::stop-commands::${pause}
`);
  const { code, stdout } = await run(file, argv, cwd, env);
  process.stdout.write(`::${pause}::
`);
  const facts = { command: inputs.command, exitCode: code };
  const document = lastJson(stdout);
  if (document) facts.document = document;
  const record = readRecord(cwd);
  if (record) facts.record = record;
  const outputs = actionOutputs(facts);
  if (env["GITHUB_OUTPUT"])
    appendFileSync(
      env["GITHUB_OUTPUT"],
      Object.entries(outputs).map(([k, v]) => output(k, v)).join("")
    );
  if (env["GITHUB_STEP_SUMMARY"]) appendFileSync(env["GITHUB_STEP_SUMMARY"], jobSummary(facts, outputs));
  if (code !== 0) process.stdout.write(`::error::release ${inputs.command} exited with ${code}
`);
  return code;
}
function toolkit(cwd, version, args) {
  const local = join(cwd, "node_modules/.bin/release");
  if (!version && existsSync(local))
    return { file: process.execPath, argv: ["--", realpathSync(local), ...args] };
  const own = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  return {
    file: npm,
    argv: ["exec", "--yes", `--package=service-release@${version ?? own.version}`, "--", "release", ...args]
  };
}
function run(file, argv, cwd, env) {
  return new Promise((done) => {
    const child = spawn(file, argv, { cwd, env, stdio: ["ignore", "pipe", "inherit"] });
    const chunks = [];
    let size = 0;
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      chunks.push(chunk);
      size += chunk.length;
      while (size > 8 * 1024 * 1024 && chunks.length > 1) size -= chunks.shift().length;
    });
    child.on("error", (error) => {
      process.stdout.write(`could not start ${file}: ${printableLines(error.message)}
`);
      done({ code: 3, stdout: "" });
    });
    child.on(
      "close",
      (code, signal) => done({
        code: code ?? (signal === "SIGINT" ? 130 : 143),
        stdout: Buffer.concat(chunks).toString("utf8")
      })
    );
  });
}
function lastJson(stdout) {
  const attempts = [stdout, ...stdout.trimEnd().split("\n").reverse().slice(0, 5)];
  for (const text of attempts) {
    try {
      const value = JSON.parse(text);
      if (value && typeof value === "object" && !Array.isArray(value))
        return value;
    } catch {
    }
  }
  return void 0;
}
function readRecord(cwd) {
  try {
    const path = join(cwd, "dist/release.json");
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return void 0;
  }
}
function output(name, value) {
  const delimiter = `ghadelimiter_${randomBytes(12).toString("hex")}`;
  return `${name}<<${delimiter}
${value}
${delimiter}
`;
}

// src/action/main.ts
process.exitCode = await runAction();
