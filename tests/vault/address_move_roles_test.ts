/**
 * A changed address strands nothing, with split roles (a relay process and a vault process,
 * separate data dirs): the vault publishes the address the relay reports (its `base_url`),
 * not the URL it calls the relay at; when the relay restarts with another `base_url`, the
 * vault's next start republishes the demo form through the relay, with one log line; another
 * start changes nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fetchManifest, type Manifest } from "../../src/sdk/mod.ts";
import { freePort, waitFor } from "../_support/process.ts";
import { call } from "../_support/server.ts";
import { QUIET_ENV } from "../_support/topology.ts";
import { ConsoleClient, firstPersonOf } from "../console/_client.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const OLD = "https://old.example.org";
const NEW = "https://forms.example.org";

/** A `sealpost serve` subprocess whose output is read as it comes. */
interface Serve {
  url: string;
  /** Its stdout so far. */
  stdout(): string;
  /** Its stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

async function serve(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "serve", "--data", dataDir, "--port", String(port), ...args],
    env: { ...QUIET_ENV, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = { stdout: "", stderr: "" };
  const read = async (stream: typeof child.stdout, into: "stdout" | "stderr") => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) out[into] += text;
  };
  const reading = Promise.all([read(child.stdout, "stdout"), read(child.stderr, "stderr")]);
  const proc: Serve = {
    url: `http://127.0.0.1:${port}`,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    stop: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
      await reading;
    },
  };
  try {
    await waitFor(`${proc.url}/healthz`, 60_000);
  } catch (err) {
    await proc.stop();
    throw new Error(`${(err as Error).message}\n${out.stderr}`);
  }
  return proc;
}

async function tokenOf(dataDir: string): Promise<string> {
  return JSON.parse(await Deno.readTextFile(join(dataDir, "credentials.json"))).ownerToken;
}

/** Polls `probe` every 100 ms until it gives a value other than null (at most 30 s). */
async function until<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const got = await probe();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** The manifest `relay` serves for `formId`, once `ready` holds. */
function servedWhen(relay: Serve, formId: string, ready: (m: Manifest) => boolean) {
  return until(async () => {
    const res = await call(`${relay.url}/forms/${formId}/manifest`);
    return res.status === 200 && ready(res.body) ? res.body as Manifest : null;
  }, `the relay's manifest of ${formId}`);
}

const republished = (proc: Serve) =>
  proc.stderr().split("\n").filter((line) => line.startsWith("Republished"));

Deno.test("split roles: the vault republishes through the relay for its new base_url", async () => {
  const root = await Deno.makeTempDir({ prefix: "sealpost-address-roles-" });
  const relayDir = join(root, "relay");
  const vaultDir = join(root, "vault");
  const running: Serve[] = [];
  const relayAt = async (baseUrl: string) => {
    const relay = await serve(relayDir, ["--role", "relay"], { SEALPOST_BASE_URL: baseUrl });
    running.push(relay);
    return relay;
  };
  /** A vault process on `relay`, once its start (and its address check) is done. */
  const vaultOn = async (relay: Serve, env: Record<string, string> = {}) => {
    const vault = await serve(vaultDir, ["--role", "vault", "--relay", relay.url], env);
    running.push(vault);
    await until(
      () => Promise.resolve(vault.stdout().includes("listens on") ? true : null),
      "the vault's start",
    );
    return vault;
  };
  try {
    let relay = await relayAt(OLD);
    let vault = await vaultOn(relay, { SEALPOST_RELAY_TOKEN: await tokenOf(relayDir) });
    const token = await tokenOf(vaultDir);
    const formId = await until(async () => {
      const forms = await call(`${vault.url}/vault/forms`, { token });
      return forms.body?.items?.[0]?.publishedVersion ? forms.body.items[0].formId : null;
    }, "the demo form");
    const pin = (await call(`${vault.url}/vault/manifest-key`, { token })).body.fingerprint;
    // The relay's public address, not the loopback URL the vault calls it at.
    assert.equal((await servedWhen(relay, formId, () => true)).relayUrl, OLD);
    assert.deepEqual(republished(vault), []);
    await vault.stop();
    await relay.stop();
    const login = await firstPersonOf(vaultDir);

    relay = await relayAt(NEW);
    vault = await vaultOn(relay);
    const manifest = await fetchManifest(formId, { relayUrl: relay.url, pin });
    assert.equal(manifest.relayUrl, NEW);
    assert.equal(manifest.schemaVersion, 1);
    assert.deepEqual(republished(vault), [`Republished 1 form for ${NEW} (it carried ${OLD})`]);
    // The share link in the console of a vault-role process: the relay's public address.
    const owner = new ConsoleClient(vault.url);
    await owner.signIn(login);
    const share = await owner.page(`/console/forms/${formId}/share`);
    assert.ok(share.includes(`${NEW}/f/${formId}#pin=${pin}`), "share link");
    assert.ok(!share.includes(relay.url), "not the URL the vault calls the relay at");
    await vault.stop();

    // Idempotent: the same addresses again, nothing republished.
    vault = await vaultOn(relay);
    assert.deepEqual(republished(vault), []);
    assert.equal((await servedWhen(relay, formId, () => true)).relayUrl, NEW);
  } finally {
    await Promise.all(running.map((p) => p.stop()));
    await Deno.remove(root, { recursive: true });
  }
});
