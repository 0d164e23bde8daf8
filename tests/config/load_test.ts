import assert from "node:assert/strict";
import { parse } from "smol-toml";
import { ConfigError, configKeys, ConfigSchema, loadConfig } from "../../src/config/index.ts";

Deno.test("defaults: data dir ./data on 127.0.0.1:8080", async () => {
  const config = await loadConfig({ env: {} });
  assert.equal(config.data_dir, "./data");
  assert.equal(config.server.host, "127.0.0.1");
  assert.equal(config.server.port, 8080);
  assert.equal(config.intake.max_ciphertext_bytes, 8 * 1024 * 1024);
});

Deno.test("precedence: defaults < file < environment < flags", async () => {
  const file = await Deno.makeTempFile({ suffix: ".toml" });
  await Deno.writeTextFile(
    file,
    'data_dir = "/from-file"\n[server]\nport = 9001\nhost = "0.0.0.0"\n[intake]\nedit_window_seconds = 60\n',
  );
  const fileOnly = await loadConfig({ file, env: {} });
  assert.equal(fileOnly.server.port, 9001);
  assert.equal(fileOnly.data_dir, "/from-file");
  const withEnv = await loadConfig({
    file,
    env: { SEALPOST_SERVER_PORT: "9002", SEALPOST_INTAKE_EDIT_WINDOW_SECONDS: "120" },
  });
  assert.equal(withEnv.server.port, 9002);
  assert.equal(withEnv.intake.edit_window_seconds, 120);
  assert.equal(withEnv.server.host, "0.0.0.0");
  const withFlags = await loadConfig({
    file,
    env: { SEALPOST_SERVER_PORT: "9002" },
    flags: { port: 9003, data: "/from-flag" },
  });
  assert.equal(withFlags.server.port, 9003);
  assert.equal(withFlags.data_dir, "/from-flag");
  await Deno.remove(file);
});

Deno.test("SEALPOST_CONFIG names the file when no --config is given", async () => {
  const file = await Deno.makeTempFile({ suffix: ".toml" });
  await Deno.writeTextFile(file, "[server]\nport = 7777\n");
  const config = await loadConfig({ env: { SEALPOST_CONFIG: file } });
  assert.equal(config.server.port, 7777);
  await Deno.remove(file);
});

Deno.test("an invalid value names its key", async () => {
  const file = await Deno.makeTempFile({ suffix: ".toml" });
  await Deno.writeTextFile(file, '[server]\nport = "eighty"\n');
  await assert.rejects(loadConfig({ file, env: {} }), (err: Error) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /server\.port/);
    return true;
  });
  await Deno.writeTextFile(file, "[server]\nport = 70000\n");
  await assert.rejects(loadConfig({ file, env: {} }), /server\.port/);
  await Deno.writeTextFile(file, "[sever]\nport = 1\n");
  await assert.rejects(loadConfig({ file, env: {} }), /sever/);
  await Deno.writeTextFile(file, "not = [toml\n");
  await assert.rejects(loadConfig({ file, env: {} }), /Invalid TOML/);
  await Deno.remove(file);
  await assert.rejects(
    loadConfig({ env: { SEALPOST_SERVER_PORT: "abc" } }),
    /SEALPOST_SERVER_PORT="abc"/,
  );
  await assert.rejects(
    loadConfig({ env: { SEALPOST_RATE_LIMITS_ENABLED: "maybe" } }),
    /SEALPOST_RATE_LIMITS_ENABLED/,
  );
  await assert.rejects(loadConfig({ file: "/nonexistent.toml", env: {} }), /Cannot read/);
});

Deno.test("config.example.toml documents every key with its default", async () => {
  const text = await Deno.readTextFile(new URL("../../config.example.toml", import.meta.url));
  const example = ConfigSchema.parse(parse(text));
  assert.deepEqual(example, ConfigSchema.parse({}));
  for (const key of configKeys()) {
    let node: unknown = parse(text);
    for (const part of key.path) node = (node as Record<string, unknown>)?.[part];
    assert.notEqual(node, undefined, `config.example.toml lacks ${key.path.join(".")}`);
  }
});
