/**
 * The console front page's warning about the forms' address: its words for each case, and
 * the front page in Chromium (axe, light and dark, desktop and phone; screenshots for the
 * docs with SEALPOST_SCREENSHOTS set).
 */
import assert from "node:assert/strict";
import { AddressWarningBox } from "../../src/console/address_warning.tsx";
import { type Config, loadConfig } from "../../src/config/index.ts";
import { readCredentials } from "../../src/store/data_dir.ts";
import { initDataDir } from "../../src/init/init.ts";
import { startServer } from "../../src/server.ts";
import { assertAccessible, launch, screenshot, signInWith } from "./_browser.ts";
import { ConsoleClient, withPassword } from "./_client.ts";

async function configOf(env: Record<string, string>, host = "0.0.0.0"): Promise<Config> {
  return await loadConfig({
    env: { SEALPOST_RATE_LIMITS_ENABLED: "false", SEALPOST_SERVER_REQUEST_LOG: "false", ...env },
    flags: { data: "/nonexistent", host, port: 0 },
  });
}

/** The words a rendering shows (blocks apart, entities decoded, spaces collapsed). */
const text = (html: unknown) =>
  String(html).replace(/<\/?(section|h2|p)\b[^>]*>/g, " ").replace(/<[^>]+>/g, "").replace(
    /&#39;/g,
    "'",
  ).replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();

Deno.test("the warning's words: loopback address, with and without base_url", async () => {
  const unset = text(
    <AddressWarningBox config={await configOf({})} address="http://127.0.0.1:8080" />,
  );
  assert.match(unset, /Other machines cannot reach your forms/);
  assert.match(
    unset,
    /base_url is not set, so your forms send people to http:\/\/127\.0\.0\.1:8080/,
  );
  assert.match(unset, /listens on 0\.0\.0\.0 \(every network interface\)/);
  assert.match(unset, /Set base_url in the configuration to the address people use/);
  assert.match(unset, /docs\/deploy\.md/);
  const set = text(
    <AddressWarningBox
      config={await configOf({ SEALPOST_BASE_URL: "http://localhost:8080" }, "192.168.1.5")}
      address="http://localhost:8080"
    />,
  );
  assert.match(
    set,
    /^Other machines cannot reach.* Your forms send people to http:\/\/localhost:8080/,
  );
  assert.match(set, /listens on 192\.168\.1\.5 for other machines/);
});

Deno.test("the warning's words: plain http on a public name; a relay's address", async () => {
  const plain = text(
    <AddressWarningBox
      config={await configOf({ SEALPOST_BASE_URL: "http://forms.example.org" })}
      address="http://forms.example.org"
    />,
  );
  assert.match(plain, /Your forms travel unencrypted/);
  assert.match(plain, /a public address over plain http/);
  assert.match(plain, /Serve Sealpost over https \(see docs\/deploy\.md\)/);
  // A vault-role process: the base_url to set is the relay's; loopback says nothing there.
  const vault = await configOf({
    SEALPOST_SERVER_ROLE: "vault",
    SEALPOST_VAULT_RELAY_URL: "http://127.0.0.1:9000",
  });
  assert.match(
    text(<AddressWarningBox config={vault} address="http://forms.example.org" />),
    /set base_url in the relay's configuration to the https address/,
  );
  assert.equal(String(<AddressWarningBox config={vault} address="http://127.0.0.1:9000" />), "");
  // Nothing to say: https, a private address, a local instance.
  for (const address of ["https://forms.example.org", "http://10.0.0.5:8080"]) {
    assert.equal(String(<AddressWarningBox config={await configOf({})} address={address} />), "");
  }
  const local = await configOf({}, "127.0.0.1");
  assert.equal(String(<AddressWarningBox config={local} address="http://127.0.0.1:8080" />), "");
});

/** An instance listening on `host`, its data dir removed on close. */
async function instance(host: string, env: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-address-warning-" });
  const config = await loadConfig({
    env: { SEALPOST_RATE_LIMITS_ENABLED: "false", SEALPOST_SERVER_REQUEST_LOG: "false", ...env },
    flags: { data: dir, host, port: 0 },
  });
  await initDataDir(config);
  const server = await startServer(config);
  return {
    url: `http://127.0.0.1:${server.port}`,
    login: await withPassword(server.vault!.store.people, (await readCredentials(dir))!.userId),
    close: async () => {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("the front page warns only when the address cannot work", async () => {
  for (
    const [host, env, heading] of [
      ["127.0.0.1", {}, null],
      ["0.0.0.0", {}, "Other machines cannot reach your forms"],
      ["127.0.0.1", { SEALPOST_BASE_URL: "http://forms.example.org" }, "travel unencrypted"],
      ["0.0.0.0", { SEALPOST_BASE_URL: "https://forms.example.org" }, null],
    ] as const
  ) {
    const inst = await instance(host, env);
    try {
      const owner = new ConsoleClient(inst.url);
      await owner.signIn(inst.login);
      const page = await owner.page("/console");
      if (heading) assert.ok(page.includes(heading), `${host} ${JSON.stringify(env)}`);
      else assert.ok(!page.includes("address-warning"), `${host} ${JSON.stringify(env)}`);
    } finally {
      await inst.close();
    }
  }
});

const SIZES = { desktop: { width: 1280, height: 720 }, phone: { width: 390, height: 844 } };

Deno.test("the warnings in Chromium: axe, light and dark, desktop and phone", async () => {
  const browser = await launch();
  try {
    for (
      const [name, host, env, title] of [
        ["loopback", "0.0.0.0", {}, "Other machines cannot reach your forms"],
        [
          "http",
          "127.0.0.1",
          { SEALPOST_BASE_URL: "http://forms.example.org" },
          "Your forms travel unencrypted",
        ],
      ] as const
    ) {
      const inst = await instance(host, env);
      const page = await browser.context.newPage();
      try {
        await page.goto(`${inst.url}/console`);
        await signInWith(page, inst.login);
        const heading = page.getByRole("heading", { name: title });
        await heading.waitFor();
        for (const [device, size] of Object.entries(SIZES)) {
          await page.setViewportSize(size);
          for (const colorScheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme });
            assert.ok(await heading.isVisible());
            await assertAccessible(page);
            await screenshot(page, `console-address-warning-${name}-${device}-${colorScheme}`);
          }
        }
      } finally {
        await page.close();
        await inst.close();
      }
    }
  } finally {
    await browser.close();
  }
});
