/**
 * docs/deploy.md followed on fresh temporary folders standing in for the servers' roots
 * (docs/deploy.md, "How this page is tested", says exactly what is replaced and why).
 *
 * Each ```sh block of the page carries a marker comment, `<!-- deploy-test: MODE HOST -->`:
 * `run` (run it on HOST), `run-until-ready` (a first start by hand: run it until it has printed
 * its demo form, then Ctrl-C), `config` (a configuration the schema must accept) or
 * `skip (why)`. A block without a marker fails the test, so nothing on the page goes
 * unchecked by accident. Where the page starts systemd units, the test runs the unit's
 * ExecStart with its Environment= instead (the units themselves: deploy_units_test.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { loadConfig } from "../../src/config/index.ts";
import { freePort } from "../_support/process.ts";
import {
  collectOutput,
  execArgs,
  KIT,
  operatorEnv,
  parseUnit,
  run,
  setting,
  waitHealthy,
} from "./_deploy.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const PAGE = join(REPO, "docs/deploy.md");
const DENO = Deno.execPath();
const UNITS = ["sealpost.service", "sealpost-backup.service", "sealpost-backup.timer"];

/** One code block of the page and its marker. */
interface Block {
  lang: string;
  code: string;
  mode: string;
  host: string;
  line: number;
}

function blocks(page: string): Block[] {
  const out: Block[] = [];
  const lines = page.split("\n");
  let marker: { mode: string; host: string } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const m = /^<!-- deploy-test: (\S+)\s*(.*?) -->$/.exec(lines[i]);
    if (m) {
      assert.ok(
        ["run", "run-until-ready", "config", "torrc", "skip"].includes(m[1]),
        `docs/deploy.md:${i + 1}: unknown deploy-test mode "${m[1]}"`,
      );
      marker = { mode: m[1], host: m[1] === "skip" ? "" : m[2] };
      continue;
    }
    const fence = /^```(\S*)$/.exec(lines[i]);
    if (!fence) {
      if (lines[i].trim() !== "") marker = null;
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; lines[i] !== "```"; i++) body.push(lines[i]);
    if (fence[1] === "sh") {
      assert.ok(marker, `docs/deploy.md:${start + 1}: a sh block without a deploy-test marker`);
    }
    if (marker) out.push({ lang: fence[1], code: body.join("\n"), ...marker, line: start + 1 });
    marker = null;
  }
  return out;
}

/** A stand-in server: its root folder, its home (where the copied files are), its env. */
interface Host {
  root: string;
  home: string;
  env: Record<string, string>;
}

/** The page's commands as they run under `root` (what "How this page is tested" lists). */
function localize(code: string, root: string): string {
  return code.split("\n").map((line) => {
    // A sed program edits a unit file's text, which keeps the server's own paths.
    if (/\bs#/.test(line)) return line;
    return line
      .replaceAll("/usr/local/bin/deno", "\0DENO\0")
      .replace(/(?<![\w.-])\/(opt|etc|var|usr\/local\/bin)\//g, `${root}/$1/`)
      .replaceAll("\0DENO\0", DENO)
      .replaceAll("sudo -u sealpost ", "")
      .replaceAll("-o sealpost -g sealpost ", "")
      .replace(/^chown .*$/, "true");
  }).join("\n");
}

/** A process started the way systemd would start `unitFile`'s ExecStart, with its output. */
interface Started {
  child: Deno.ChildProcess;
  output: () => string;
}

async function startUnit(host: Host, unitFile: string): Promise<Started> {
  const unit = parseUnit(await Deno.readTextFile(join(host.home, unitFile)));
  const [program, ...args] = execArgs(localize(setting(unit, "Service", "ExecStart")!, host.root));
  const env: Record<string, string> = { ...host.env };
  for (const value of unit.get("Service")!.get("Environment") ?? []) {
    const eq = value.indexOf("=");
    env[value.slice(0, eq)] = localize(value.slice(eq + 1), host.root);
  }
  for (const dir of [env.DENO_DIR]) if (dir) await Deno.mkdir(dir, { recursive: true });
  const child = new Deno.Command(program, {
    args,
    cwd: host.home,
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return { child, output: collectOutput(child) };
}

/** Waits (bounded) until `started` has printed `pattern`; returns its match. */
async function printed(started: Started, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  for (let i = 0; i < 300; i++) {
    const m = pattern.exec(started.output());
    if (m) return m;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not print ${pattern}:\n${started.output()}`);
}

async function runBlock(block: Block, host: Host, extra: Record<string, string> = {}) {
  const code = localize(block.code, host.root);
  const out = await run("bash", ["-euc", code], { cwd: host.home, env: { ...host.env, ...extra } });
  assert.equal(
    out.code,
    0,
    `docs/deploy.md:${block.line} (${block.host}):\n${code}\n${out.stderr}`,
  );
  return out;
}

async function newHost(base: string, name: string, env: Record<string, string>): Promise<Host> {
  const root = join(base, name);
  const home = join(root, "root");
  await Deno.mkdir(join(root, "usr/local/bin"), { recursive: true });
  await Deno.mkdir(home, { recursive: true });
  return {
    root,
    home,
    env: operatorEnv({
      ...env,
      PATH: `${join(root, "usr/local/bin")}:${Deno.env.get("PATH")}`,
      DENO_DIR: join(base, "deno-dir"),
      SEALPOST_SERVER_REQUEST_LOG: "false",
    }),
  };
}

Deno.test("docs/deploy.md, followed on fresh folders: one server, backups, relay and vault, onion", async () => {
  assert.equal(Deno.version.deno, "2.9.6", "the page pins Deno 2.9.6");
  const all = blocks(await Deno.readTextFile(PAGE));
  const base = await Deno.makeTempDir({ prefix: "sealpost-deploy-doc-" });
  const ports = { server: freePort(), relay: freePort(), vault: freePort(), onion: freePort() };
  const local = (port: number) => `http://127.0.0.1:${port}`;
  const server = await newHost(base, "server", {
    SEALPOST_SERVER_PORT: String(ports.server),
    SEALPOST_BASE_URL: local(ports.server),
  });
  const hosts: Record<string, Host> = {
    server,
    onion: { ...server, env: { ...server.env, SEALPOST_SERVER_PORT: String(ports.onion) } },
    relay: await newHost(base, "relay", {
      SEALPOST_SERVER_PORT: String(ports.relay),
      SEALPOST_BASE_URL: local(ports.relay),
    }),
    vault: await newHost(base, "vault", {
      SEALPOST_SERVER_PORT: String(ports.vault),
      SEALPOST_VAULT_RELAY_URL: local(ports.relay),
    }),
  };
  delete hosts.onion.env.SEALPOST_BASE_URL;
  const started: Started[] = [];
  const start = async (host: Host, unitFile: string, port: number) => {
    const s = await startUnit(host, unitFile);
    started.push(s);
    await waitHealthy(`${local(port)}/healthz`);
    return s;
  };
  let serverUnit: Started | null = null;
  let relayUnit: Started | null = null;
  let vaultBanner = "";
  let onionAddress = "";
  const ran: string[] = [];
  try {
    for (const block of all) {
      if (block.mode === "torrc") {
        onionAddress = await onionService(block, hosts.onion, ports.onion);
        ran.push(`torrc:${block.line}`);
        continue;
      }
      if (block.mode === "skip" || block.lang !== "sh") continue;
      if (block.mode === "config") {
        await checkConfigBlock(block, base);
        ran.push(`config:${block.line}`);
        continue;
      }
      if (block.host === "build") {
        // Step 1 in the checkout, with this Deno for `npx -y deno@2.9.6` (the same version).
        const code = block.code.replaceAll("npx -y deno@2.9.6", DENO);
        const out = await run("bash", ["-euc", code], { cwd: REPO, env: operatorEnv() });
        assert.equal(out.code, 0, out.stderr);
        // The copy to each server (scp).
        for (const host of [server, hosts.relay, hosts.vault]) {
          await Deno.copyFile(join(REPO, "dist/sealpost.js"), join(host.home, "sealpost.js"));
          for (const unit of UNITS) await Deno.copyFile(join(KIT, unit), join(host.home, unit));
        }
        ran.push("build");
        continue;
      }
      // The install of step 2 runs on every server ("as in steps 1 to 3").
      const names = block.host.split(" ");
      if (names.length > 1) {
        for (const name of names) await runBlock(block, hosts[name]);
        ran.push(`${block.host}:${block.line}`);
        continue;
      }
      const host = hosts[block.host];
      assert.ok(host, `docs/deploy.md:${block.line}: unknown host "${block.host}"`);
      // Step 6 (systemctl enable --now) before step 7's doctor.
      if (block.host === "server" && block.code.includes("sealpost doctor") && !serverUnit) {
        serverUnit = await start(server, "sealpost.service", ports.server);
      }
      // Step 8 (systemctl start sealpost-backup.service) before the restore.
      if (block.code.includes("sealpost restore")) await runBackupUnit(server);
      if (block.mode === "run-until-ready") {
        assert.equal(block.host, "vault");
        // The relay was started with systemd ("Start it"), before the vault's first start.
        relayUnit ??= await start(hosts.relay, "sealpost.service", ports.relay);
        const ownerToken = JSON.parse(
          await Deno.readTextFile(join(hosts.relay.root, "var/lib/sealpost/credentials.json")),
        ).ownerToken;
        vaultBanner = await firstStart(block, host, ownerToken);
        ran.push(`run-until-ready:${block.line}`);
        continue;
      }
      // "Put the address from hostname into base_url".
      const out = await runBlock(
        block.host === "onion"
          ? { ...block, code: block.code.replace(/http:\/\/example\w+\.onion/, onionAddress) }
          : block,
        host,
      );
      ran.push(`${block.host}:${block.line}`);
      if (block.code.includes("sealpost doctor")) {
        assert.doesNotMatch(out.stdout, /^FAIL/m);
        assert.match(out.stdout, /^ok {4}base_url_matches/m);
        assert.match(out.stdout, /^ok {4}data_dir_modes/m);
        assert.match(out.stdout, /^ok {4}open_files\s+the server's limit/m);
      }
    }
    assert.ok(serverUnit && relayUnit && vaultBanner, `ran: ${ran.join(", ")}`);

    // Relay and vault: a submission to the relay becomes a record on the vault.
    await start(hosts.vault, "sealpost.service", ports.vault);
    await checkSplit(hosts.vault, vaultBanner, local(ports.relay), local(ports.vault));

    // The onion instance, from the unit the page's sed wrote.
    await verifyUnit(join(server.home, "sealpost-onion.service"));
    const onion = await start(hosts.onion, "sealpost-onion.service", ports.onion);
    await checkOnion(onion, local(ports.onion), onionAddress);
  } finally {
    for (const s of started) {
      try {
        s.child.kill("SIGTERM");
      } catch {
        // Already stopped.
      }
    }
    const codes = await Promise.all(started.map((s) => s.child.status.then((st) => st.code)));
    await Deno.remove(base, { recursive: true });
    assert.deepEqual(
      codes,
      codes.map(() => 0),
      `every service stops cleanly on SIGTERM:\n${started.map((s) => s.output()).join("\n---\n")}`,
    );
  }
});

/** Step 4's TLS configuration: valid TOML the configuration loads, its base URL https. */
async function checkConfigBlock(block: Block, base: string) {
  const toml = /<<'EOF'\n([\s\S]*?)\nEOF/.exec(block.code)![1];
  const parsed = parseToml(toml) as { server: { tls?: { acme?: Record<string, unknown> } } };
  assert.deepEqual(Object.keys(parsed.server.tls!.acme!).sort(), ["domains", "email", "enabled"]);
  const file = join(base, "tls.toml");
  await Deno.writeTextFile(file, toml);
  const config = await loadConfig({ file, env: {} });
  assert.equal(config.base_url, "https://forms.example.org");
  assert.ok(config.server.tls.acme.enabled);
}

/** The backup unit's ExecStart and ExecStartPost, as systemd runs them for the timer. */
async function runBackupUnit(host: Host) {
  const unit = parseUnit(await Deno.readTextFile(join(host.home, "sealpost-backup.service")));
  const env = { ...host.env };
  for (const value of unit.get("Service")!.get("Environment") ?? []) {
    const eq = value.indexOf("=");
    env[value.slice(0, eq)] = localize(value.slice(eq + 1), host.root);
  }
  for (const key of ["ExecStart", "ExecStartPost"]) {
    const [program, ...args] = execArgs(localize(setting(unit, "Service", key)!, host.root));
    const out = await run(program, args, { env, cwd: host.home });
    assert.equal(out.code, 0, `${key}: ${out.stderr}`);
  }
  const archives = [...Deno.readDirSync(join(host.root, "var/backups/sealpost"))]
    .filter((e) => /^sealpost-\d{8}T\d{6}Z\.tar$/.test(e.name));
  assert.equal(archives.length, 1);
}

/** The vault's first start by hand: until it has printed its demo form, then Ctrl-C. */
async function firstStart(block: Block, host: Host, relayToken: string): Promise<string> {
  assert.match(block.code, /SEALPOST_RELAY_TOKEN='<relay owner token>'/);
  const code = localize(block.code, host.root).replace("<relay owner token>", relayToken);
  const child = new Deno.Command("bash", {
    args: ["-euc", code],
    cwd: host.home,
    clearEnv: true,
    env: host.env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const s: Started = { child, output: collectOutput(child) };
  await printed(s, /manifest key:\s+\S+/, "the vault's first start");
  // bash runs the one command in its place, and the wrapper execs Deno: this is Deno.
  child.kill("SIGINT");
  assert.equal((await child.status).code, 0, s.output());
  const text = s.output();
  // The token is kept (0600) for the next starts.
  const saved = await Deno.stat(join(host.root, "var/lib/sealpost/vault/relay.json"));
  assert.equal(saved.mode! & 0o777, 0o600);
  return text;
}

async function checkSplit(vault: Host, banner: string, relayUrl: string, vaultUrl: string) {
  const formId = /demo form id:\s+(\S+)/.exec(banner)![1];
  const pin = /manifest key:\s+(\S+)/.exec(banner)![1];
  // The vault's manifests name the relay (here its loopback stand-in).
  const manifest = await (await fetch(`${relayUrl}/forms/${formId}/manifest`)).json();
  assert.equal(manifest.relayUrl, relayUrl);
  const sealpost = join(vault.root, "usr/local/bin/sealpost");
  const values = JSON.stringify({ name: "Ada", email: "ada@example.com", rating: 5 });
  const submit = await run(sealpost, [
    "submit",
    formId,
    "--relay",
    relayUrl,
    "--pin",
    pin,
    "--values",
    "-",
  ], { env: vault.env, stdin: values });
  assert.equal(submit.code, 0, submit.stderr);
  const id = /submissionId:\s+(\S+)/.exec(submit.stdout)![1];
  for (let i = 0; i < 100; i++) {
    const list = await run(sealpost, [
      "records",
      "list",
      formId,
      "--data",
      join(vault.root, "var/lib/sealpost"),
      "--url",
      vaultUrl,
    ], { env: vault.env });
    if (list.stdout.includes(id)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail("the submission did not become a record on the vault");
}

async function checkOnion(onion: Started, localUrl: string, address: string) {
  const [, onionBase, formId] = await printed(
    onion,
    /open the form:\s+(http:\/\/[a-z2-7]{56}\.onion)\/f\/(\S+?)#pin=/,
    "the onion instance",
  );
  assert.equal(onionBase, address, "the share link carries the address Tor made");
  const manifest = await (await fetch(`${localUrl}/forms/${formId}/manifest`)).json();
  assert.equal(manifest.relayUrl, onionBase, "its manifests carry the onion address");
  const page = await fetch(`${localUrl}/f/${formId}`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /text\/html/);
  await page.body?.cancel();
}

/**
 * The page's torrc lines, run by Tor without its network (DisableNetwork: the service's keys
 * and address are made, nothing is published): returns the onion address Tor wrote.
 */
async function onionService(block: Block, host: Host, port: number): Promise<string> {
  const lines = localize(block.code, host.root).replace("127.0.0.1:8081", `127.0.0.1:${port}`);
  const dir = /^HiddenServiceDir (\S+)$/m.exec(lines)![1];
  await Deno.mkdir(join(host.root, "var/lib/tor"), { recursive: true, mode: 0o700 });
  const torrc = join(host.root, "torrc");
  await Deno.writeTextFile(
    torrc,
    `${lines}\nDataDirectory ${join(host.root, "var/lib/tor/data")}\nSocksPort 0\n` +
      "DisableNetwork 1\nLog notice stderr\n",
  );
  const verified = await run("tor", ["--verify-config", "-f", torrc]);
  assert.equal(verified.code, 0, verified.stdout);
  const tor = new Deno.Command("tor", { args: ["-f", torrc], stdout: "null", stderr: "null" })
    .spawn();
  try {
    for (let i = 0; i < 100; i++) {
      const hostname = await Deno.readTextFile(join(dir, "hostname")).catch(() => null);
      if (hostname) return `http://${hostname.trim()}`;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("Tor wrote no hostname");
  } finally {
    tor.kill("SIGTERM");
    await tor.status;
  }
}

async function verifyUnit(path: string) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-onion-unit-" });
  const copy = join(dir, "sealpost-onion.service");
  await Deno.writeTextFile(
    copy,
    (await Deno.readTextFile(path)).replaceAll("/usr/local/bin/deno", DENO),
  );
  const out = await run("systemd-analyze", ["verify", "--man=no", copy], { cwd: dir });
  await Deno.remove(dir, { recursive: true });
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stderr.trim(), "");
}
