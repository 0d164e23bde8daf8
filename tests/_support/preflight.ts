/**
 * Run first by `deno task test`: makes sure the programs the tests use outside Deno are there
 * (Chromium, python3 with PyNaCl and argon2-cffi, oathtool, Node.js, age, openssl, and the Ceph object gateway, PostgreSQL
 * and pebble that `tests/_support/services/` starts on loopback), so that a missing one stops the run at once with
 * the command that fixes it, instead of failing tests halfway through.
 *
 * Missing Debian packages are installed with apt-get when running as root (apt-get update
 * first); otherwise it prints the exact command to run and exits 1.
 */
import { PYTHON } from "./python.ts";
import { PG_BIN } from "./services/postgres.ts";
import { AGE, CHROMIUM, NODE } from "./tools.ts";

/** One program the tests need, and the Debian package that provides it. */
export interface Requirement {
  /** What it is and what for, for the message. */
  what: string;
  /** The Debian package to install. */
  debianPackage: string;
  /** Whether it is there. */
  present(): Promise<boolean>;
}

async function succeeds(command: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(command, { args, stdout: "null", stderr: "null" })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

/** What the tests need (the paths follow the same SEALPOST_* overrides the tests read). */
export const REQUIREMENTS: Requirement[] = [
  {
    what: `Chromium at ${CHROMIUM} (browser tests)`,
    debianPackage: "chromium",
    present: () => succeeds(CHROMIUM, ["--version"]),
  },
  {
    what: `${PYTHON} with PyNaCl (libsodium interop tests)`,
    debianPackage: "python3-nacl",
    present: () => succeeds(PYTHON, ["-c", "import nacl.public"]),
  },
  {
    what: `Node.js (${NODE}; the SDK under Node)`,
    debianPackage: "nodejs",
    present: () => succeeds(NODE, ["--version"]),
  },
  {
    what: `${PYTHON} with argon2-cffi (password hash interop tests)`,
    debianPackage: "python3-argon2",
    present: () => succeeds(PYTHON, ["-c", "import argon2"]),
  },
  {
    what: "oathtool (TOTP interop tests)",
    debianPackage: "oathtool",
    present: () => succeeds("oathtool", ["--version"]),
  },
  {
    what: `age (${AGE}; encrypted-file interop tests)`,
    debianPackage: "age",
    present: () => succeeds(AGE, ["--version"]),
  },
  // The deployment kit (tests/docs/deploy_*): its units checked, traced; doctor's test CA.
  {
    what: "systemd-analyze (verifying the systemd units of docs/deploy/)",
    debianPackage: "systemd",
    present: () => succeeds("systemd-analyze", ["--version"]),
  },
  {
    what: "strace (the system calls Deno makes, against the units' SystemCallFilter)",
    debianPackage: "strace",
    present: () => succeeds("strace", ["-V"]),
  },
  {
    what: "tor (the onion service of docs/deploy.md, run without its network)",
    debianPackage: "tor",
    present: () => succeeds("tor", ["--version"]),
  },
  {
    what: `${PYTHON} with PyYAML (reading docs/deploy/compose.yaml)`,
    debianPackage: "python3-yaml",
    present: () => succeeds(PYTHON, ["-c", "import yaml"]),
  },
  {
    what: "openssl (test certificates of the doctor and webhook tests)",
    debianPackage: "openssl",
    present: () => succeeds("openssl", ["version"]),
  },
  // The dev/test services (tests/_support/services/): a Ceph object gateway and PostgreSQL.
  ...["ceph-mon", "ceph-osd", "radosgw"].map((program) => ({
    what: `${program} (the Ceph object gateway of the S3 blob tests)`,
    debianPackage: program,
    present: () => succeeds(program, ["--version"]),
  })),
  {
    what: "ceph, monmaptool, radosgw-admin (setting up the Ceph object gateway)",
    debianPackage: "ceph-common",
    present: async () =>
      (await Promise.all(
        [["ceph", "--version"], ["monmaptool", "--help"], ["radosgw-admin", "--version"]]
          .map(([p, a]) => succeeds(p, [a])),
      )).every(Boolean),
  },
  {
    what: `PostgreSQL 15 server (${PG_BIN}; the PostgreSQL store tests)`,
    debianPackage: "postgresql",
    present: () => succeeds(`${PG_BIN}/initdb`, ["--version"]),
  },
  {
    what: "openssl (test certificates of the TLS tests)",
    debianPackage: "openssl",
    present: () => succeeds("openssl", ["version"]),
  },
  {
    what: "pebble and pebble-challtestsrv (the test ACME CA of the TLS tests)",
    debianPackage: "pebble",
    present: async () =>
      (await Promise.all(["pebble", "pebble-challtestsrv"].map((p) => succeeds(p, ["-h"]))))
        .every(Boolean),
  },
];

/** The requirements that are not met, in order. */
export async function missing(requirements: Requirement[]): Promise<Requirement[]> {
  const found = await Promise.all(requirements.map((r) => r.present()));
  return requirements.filter((_, i) => !found[i]);
}

/** The apt-get commands that install `packages`, prefixed with sudo unless root. */
export function installCommands(packages: string[], root: boolean): string[][] {
  const sudo = root ? [] : ["sudo"];
  return [
    [...sudo, "apt-get", "update"],
    [...sudo, "apt-get", "install", "-y", "--no-install-recommends", ...packages],
  ];
}

/** What the preflight does about `absent` requirements. */
export type Plan =
  | { action: "none" }
  | { action: "install"; commands: string[][] }
  | { action: "stop"; message: string };

/**
 * Decides: nothing missing, install (as root with apt-get), or stop with the command to run.
 *
 * @example
 * ```ts
 * const plan = planFor(await missing(REQUIREMENTS), { root: Deno.uid() === 0, apt: true });
 * ```
 */
export function planFor(absent: Requirement[], host: { root: boolean; apt: boolean }): Plan {
  if (absent.length === 0) return { action: "none" };
  const packages = [...new Set(absent.map((r) => r.debianPackage))];
  const commands = installCommands(packages, host.root);
  if (host.root && host.apt) return { action: "install", commands };
  const list = absent.map((r) => `  - ${r.what}: Debian package ${r.debianPackage}`).join("\n");
  const fix = host.apt
    ? `Install them, then run the tests again:\n  ${commands.map((c) => c.join(" ")).join(" && ")}`
    : `Install them (on Debian: ${packages.join(" ")}), or point SEALPOST_CHROMIUM, ` +
      "SEALPOST_PYTHON, SEALPOST_NODE at your copies, then run the tests again.";
  return { action: "stop", message: `The tests need programs that are missing:\n${list}\n${fix}` };
}

/** What {@link preflight} acts on: the machine, or fakes in tests. */
export interface Host {
  root: boolean;
  apt: boolean;
  /** Runs a command (output to the terminal); resolves to its exit code. */
  exec(command: string[]): Promise<number>;
  /** Prints a line on stderr. */
  say(line: string): void;
}

/** Runs `command` with the terminal as its output; its exit code. */
async function execInherit([command, ...args]: string[]): Promise<number> {
  const status = await new Deno.Command(command, {
    args,
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return status.code;
}

/**
 * Checks `requirements` and acts on the plan: 0 when everything is there (after installing
 * what was missing, as root), 1 when the tests cannot run yet.
 *
 * @example
 * ```ts
 * Deno.exit(await preflight(REQUIREMENTS, host));
 * ```
 */
export async function preflight(requirements: Requirement[], host: Host): Promise<number> {
  const absent = await missing(requirements);
  const plan = planFor(absent, host);
  if (plan.action === "none") return 0;
  if (plan.action === "stop") {
    host.say(plan.message);
    return 1;
  }
  host.say(`Installing what the tests need: ${absent.map((r) => r.debianPackage).join(" ")}`);
  for (const command of plan.commands) {
    const code = await host.exec(command);
    if (code !== 0) {
      host.say(`"${command.join(" ")}" failed (exit ${code})`);
      return 1;
    }
  }
  const still = await missing(requirements);
  if (still.length > 0) {
    host.say(`Still missing after the install: ${still.map((r) => r.what).join("; ")}`);
    return 1;
  }
  return 0;
}

if (import.meta.main) {
  Deno.exit(
    await preflight(REQUIREMENTS, {
      root: Deno.uid() === 0,
      apt: await succeeds("apt-get", ["--version"]),
      exec: execInherit,
      say: (line) => console.error(line),
    }),
  );
}
