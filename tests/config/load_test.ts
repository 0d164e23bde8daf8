import assert from "node:assert/strict";
import { parse } from "smol-toml";
import { z } from "zod";
import {
  ConfigError,
  configKeys,
  ConfigSchema,
  LETS_ENCRYPT_DIRECTORY,
  loadConfig,
  OTHER_VARIABLES,
  publicBaseUrl,
  unknownVariables,
} from "../../src/config/index.ts";
import { type ConfigKey, type ConfigSources, fromEnv } from "../../src/config/load.ts";

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

const SCHEDULE = "SEALPOST_WEBHOOKS_RETRY_SCHEDULE_SECONDS";

async function schedule(env: Record<string, string>, file?: string): Promise<number[]> {
  return (await loadConfig({ file, env })).webhooks.retry_schedule_seconds;
}

/** Rejects with a ConfigError whose message matches every pattern. */
async function refuses(env: Record<string, string>, ...patterns: RegExp[]) {
  await assert.rejects(loadConfig({ env }), (err: Error) => {
    assert.ok(err instanceof ConfigError, `${err}`);
    for (const pattern of patterns) assert.match(err.message, pattern);
    return true;
  });
}

Deno.test("every list in the schema is one key, read from one variable", () => {
  const keys = configKeys();
  const lists = keys.filter((key) => typeof key.kind === "object");
  assert.deepEqual(lists.map((key) => key.env), [
    "SEALPOST_SERVER_TRUSTED_PROXIES",
    "SEALPOST_SERVER_TLS_ACME_DOMAINS",
    SCHEDULE,
  ]);
  assert.deepEqual(lists.map((key) => key.kind), [
    { list: "string" },
    { list: "string" },
    { list: "number" },
  ]);
  assert.ok(keys.every((key) => !key.path.some((part) => /^\d+$/.test(part))), "no per-entry keys");
  // Each array among the defaults is a list key (none is split into entries or skipped).
  const arrays: string[] = [];
  const walk = (node: unknown, path: string[]) => {
    if (Array.isArray(node)) arrays.push(path.join("."));
    else if (node !== null && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) walk(value, [...path, key]);
    }
  };
  walk(ConfigSchema.parse({}), []);
  assert.deepEqual(arrays, lists.map((key) => key.path.join(".")));
});

Deno.test("a list from the environment: JSON array or items separated by commas", async () => {
  assert.deepEqual(await schedule({ [SCHEDULE]: "[0,5,30]" }), [0, 5, 30]);
  assert.deepEqual(await schedule({ [SCHEDULE]: " [ 0, 2.5 , 30 ] " }), [0, 2.5, 30]);
  assert.deepEqual(await schedule({ [SCHEDULE]: "0,5,30" }), [0, 5, 30]);
  assert.deepEqual(await schedule({ [SCHEDULE]: " 0 ,\t5,  30 " }), [0, 5, 30]);
  assert.deepEqual(await schedule({ [SCHEDULE]: "7" }), [7]);
  assert.deepEqual(await schedule({ [SCHEDULE]: "0.5,1e3" }), [0.5, 1000]);
});

Deno.test("a bad list item is a ConfigError naming the variable or the key", async () => {
  await refuses({ [SCHEDULE]: "0,x,30" }, /SEALPOST_WEBHOOKS_RETRY_SCHEDULE_SECONDS/, /item 2/);
  await refuses({ [SCHEDULE]: "0,,30" }, new RegExp(SCHEDULE), /item 2 is empty/);
  await refuses({ [SCHEDULE]: "0,5," }, new RegExp(SCHEDULE), /item 3 is empty/);
  await refuses({ [SCHEDULE]: "[0,5" }, new RegExp(SCHEDULE), /JSON array/);
  await refuses({ [SCHEDULE]: "[0,5]x" }, new RegExp(SCHEDULE), /JSON array/);
  // Converted items meet the same schema as TOML values: range, type and length.
  await refuses({ [SCHEDULE]: "0, -5" }, /webhooks\.retry_schedule_seconds\.1/, /expected number/);
  await refuses({ [SCHEDULE]: "[0,-5]" }, /webhooks\.retry_schedule_seconds\.1/);
  await refuses({ [SCHEDULE]: '["5"]' }, /webhooks\.retry_schedule_seconds\.0/, /string/);
  await refuses({ [SCHEDULE]: "[0,null]" }, /webhooks\.retry_schedule_seconds\.1/);
  const tooMany = Array.from({ length: 101 }, () => "1").join(",");
  await refuses({ [SCHEDULE]: tooMany }, /webhooks\.retry_schedule_seconds/, /100/);
});

Deno.test("an empty value is the empty list, which this key's schema refuses", async () => {
  for (const raw of ["", "  ", "[]"]) {
    await refuses({ [SCHEDULE]: raw }, /webhooks\.retry_schedule_seconds: Too small/);
  }
});

Deno.test("one variable per list entry is refused, not silently ignored", async () => {
  await refuses(
    { [`${SCHEDULE}_0`]: "7" },
    new RegExp(`${SCHEDULE}_0 is not read`),
    new RegExp(`set the whole list in ${SCHEDULE}`),
  );
});

Deno.test("precedence of a list: environment over file; the flags leave it alone", async () => {
  const file = await Deno.makeTempFile({ suffix: ".toml" });
  try {
    await Deno.writeTextFile(file, "[webhooks]\nretry_schedule_seconds = [1, 2]\n");
    assert.deepEqual(await schedule({}, file), [1, 2]);
    assert.deepEqual(await schedule({ [SCHEDULE]: "3, 4, 5" }, file), [3, 4, 5]);
    assert.deepEqual(await schedule({ [SCHEDULE]: "[6]" }, file), [6]);
    const all = await loadConfig({
      file,
      env: { [SCHEDULE]: "8,9", SEALPOST_SERVER_PORT: "9002" },
      flags: { port: 9003, host: "0.0.0.0", data: "/from-flag" },
    });
    assert.deepEqual(all.webhooks.retry_schedule_seconds, [8, 9]);
    assert.equal(all.server.port, 9003);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("scalars from the environment keep their parsing", async () => {
  const config = await loadConfig({
    env: {
      SEALPOST_SERVER_PORT: " 9000 ",
      SEALPOST_WEBHOOKS_JITTER_RATIO: "0.25",
      SEALPOST_RATE_LIMITS_ENABLED: "0",
      SEALPOST_SERVER_TRUSTED_PROXIES: "10.0.0.0/8, ::1",
      SEALPOST_WEBHOOKS_BLOCK_PRIVATE_NETWORKS: "true",
      SEALPOST_SERVER_REQUEST_LOG: "false",
      SEALPOST_BASE_URL: "",
      SEALPOST_SERVER_ROLE: "relay",
    },
  });
  assert.equal(config.server.port, 9000);
  assert.equal(config.webhooks.jitter_ratio, 0.25);
  assert.equal(config.rate_limits.enabled, false);
  assert.deepEqual(config.server.trusted_proxies, ["10.0.0.0/8", "::1"]);
  assert.equal(config.webhooks.block_private_networks, true);
  assert.equal(config.server.request_log, false);
  assert.equal(config.base_url, "");
  assert.equal(config.server.role, "relay");
  for (const raw of ["", " ", "1,2", "[1]", "Infinity"]) {
    await refuses({ SEALPOST_SERVER_PORT: raw }, /SEALPOST_SERVER_PORT=/, /expected a number/);
  }
  for (const raw of ["TRUE", " true", "yes", ""]) {
    await refuses({ SEALPOST_SERVER_REQUEST_LOG: raw }, /expected true or false/);
  }
  await refuses({ SEALPOST_SERVER_ROLE: "both" }, /server\.role/);
});

// A schema with the list shapes the configuration may grow: the parsing follows the schema.
const Lists = z.strictObject({
  names: z.array(z.string().min(1)).default([]),
  flags: z.array(z.boolean()).min(1).default([true]),
  nested: z.strictObject({ ports: z.array(z.number().int()).optional() }).prefault({}),
  hooks: z.array(z.strictObject({ url: z.string() })).default([]),
  labels: z.record(z.string(), z.string()).default({}),
});

function listKey(env: string): ConfigKey {
  const key = configKeys(Lists).find((key) => key.env === env);
  assert.ok(key, env);
  return key;
}

Deno.test("list kinds come from the schema: items, nesting, structured items", () => {
  assert.deepEqual(
    configKeys(Lists).map((key) => [key.env, key.kind, key.sample]),
    [
      ["SEALPOST_NAMES", { list: "string" }, []],
      ["SEALPOST_FLAGS", { list: "boolean" }, [true]],
      ["SEALPOST_NESTED_PORTS", { list: "number" }, undefined],
      ["SEALPOST_HOOKS", { list: "json" }, []],
      ["SEALPOST_LABELS", "json", {}],
    ],
  );
});

Deno.test("lists of strings, booleans and structured items from the environment", () => {
  const names = listKey("SEALPOST_NAMES");
  assert.deepEqual(fromEnv(" alice , bob ", names), ["alice", "bob"]);
  assert.deepEqual(fromEnv('["a,b", " c "]', names), ["a,b", " c "]);
  assert.throws(() => fromEnv("a,,b", names), /SEALPOST_NAMES="a,,b": item 2 is empty.*JSON/);
  // Where the schema allows an empty list, the empty value is one.
  assert.deepEqual(fromEnv("", names), []);
  assert.deepEqual(Lists.parse({ names: fromEnv(" ", names) }).names, []);
  const flags = listKey("SEALPOST_FLAGS");
  assert.deepEqual(fromEnv("true, 0,1 ,false", flags), [true, false, true, false]);
  assert.throws(() => fromEnv("true,yes", flags), /item 2 is "yes", expected true or false/);
  assert.equal(Lists.safeParse({ flags: fromEnv("", flags) }).success, false, "min(1)");
  const ports = listKey("SEALPOST_NESTED_PORTS");
  assert.deepEqual(fromEnv("80, 443", ports), [80, 443]);
  const hooks = listKey("SEALPOST_HOOKS");
  assert.deepEqual(fromEnv('[{"url":"https://a"}]', hooks), [{ url: "https://a" }]);
  assert.throws(() => fromEnv("https://a", hooks), /SEALPOST_HOOKS=.*expected a JSON array/);
  const labels = listKey("SEALPOST_LABELS");
  assert.deepEqual(fromEnv('{"a":"b"}', labels), { a: "b" });
  assert.throws(() => fromEnv("a=b", labels), (err: Error) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /SEALPOST_LABELS='a=b': expected JSON/);
    return true;
  });
});

Deno.test("unknownVariables: SEALPOST_* names nothing reads, for serve to warn about", () => {
  assert.deepEqual(
    unknownVariables({
      SEALPOST_SERVER_PORT: "9000",
      SEALPOST_SERVER_PROT: "9000",
      SEALPOST_WEBHOOK_CONCURRENCY_PER_WEBHOOK: "4",
      SEALPOST_PASSPHRASE: "x",
      SEALPOST_RELAY_TOKEN: "x",
      SEALPOST_URL: "x",
      SEALPOST_TOKEN: "x",
      SEALPOST_CONFIG: "x",
      SEALPOST_WEBHOOKS_RETRY_SCHEDULE_SECONDS: "0,5",
      HOME: "/root",
      sealpost_server_port: "1",
    }),
    ["SEALPOST_SERVER_PROT", "SEALPOST_WEBHOOK_CONCURRENCY_PER_WEBHOOK"],
  );
  // Every key of the configuration is known, as is each variable read elsewhere.
  const every = Object.fromEntries(
    [...configKeys().map((k) => k.env), ...OTHER_VARIABLES].map((name) => [name, "1"]),
  );
  assert.deepEqual(unknownVariables(every), []);
});

Deno.test("config: the removed server.trust_proxy is an error naming server.trusted_proxies", async () => {
  const sourcesList: ConfigSources[] = [
    { env: { SEALPOST_SERVER_TRUST_PROXY: "true" } },
    { env: {}, file: await tomlFile("[server]\ntrust_proxy = true\n") },
  ];
  for (const sources of sourcesList) {
    await assert.rejects(
      () => loadConfig(sources),
      (err: Error) =>
        err instanceof ConfigError && /server\.trust_proxy/.test(err.message) &&
        /server\.trusted_proxies/.test(err.message),
    );
  }
});

Deno.test("config: server.trusted_proxies takes addresses and CIDRs only", async () => {
  const config = await loadConfig({
    env: { SEALPOST_SERVER_TRUSTED_PROXIES: '["192.168.0.0/16", "2001:db8::/32", "::1"]' },
  });
  assert.equal(config.server.trusted_proxies.length, 3);
  for (const bad of ["proxy.local", "10.0.0.0/33", "::1/129", "1.2.3.4/8/8"]) {
    await assert.rejects(
      () => loadConfig({ env: { SEALPOST_SERVER_TRUSTED_PROXIES: bad } }),
      /server\.trusted_proxies/,
    );
  }
});

async function tomlFile(text: string): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".toml" });
  await Deno.writeTextFile(file, text);
  return file;
}

Deno.test("config [store]: kv by default; postgres needs a postgres URL, never shown in errors", async () => {
  const defaults = await loadConfig({ env: {} });
  assert.deepEqual(defaults.store, {
    backend: "kv",
    postgres_url: "",
    postgres_pool_size: 10,
    relay_secret_file: "",
  });
  const url = "postgres://sealpost:s3cret-pw@db.internal:5432/sealpost";
  const short = await loadConfig({
    env: { SEALPOST_STORE_BACKEND: "postgres", SEALPOST_POSTGRES_URL: url },
  });
  assert.equal(short.store.backend, "postgres");
  assert.equal(short.store.postgres_url, url, "SEALPOST_POSTGRES_URL is the short name");
  const both = await loadConfig({
    env: {
      SEALPOST_POSTGRES_URL: url,
      SEALPOST_STORE_POSTGRES_URL: "postgresql://other@127.0.0.1/x",
    },
  });
  assert.equal(both.store.postgres_url, "postgresql://other@127.0.0.1/x", "the long name wins");
  const refusals: [Record<string, string>, RegExp][] = [
    [{ SEALPOST_STORE_BACKEND: "postgres" }, /store\.postgres_url: .*needs store\.postgres_url/],
    [{ SEALPOST_POSTGRES_URL: url.replace("postgres:", "mysql:") }, /store\.postgres_url/],
    [{ SEALPOST_STORE_BACKEND: "mongodb" }, /store\.backend/],
    [{ SEALPOST_STORE_POSTGRES_POOL_SIZE: "1" }, /store\.postgres_pool_size/],
  ];
  for (const [env, message] of refusals) {
    await assert.rejects(() => loadConfig({ env }), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, message);
      assert.doesNotMatch(err.message, /s3cret-pw/);
      return true;
    });
  }
});

Deno.test("config [server.tls]: off by default; files go together; ACME needs domains and http_port", async () => {
  const defaults = await loadConfig({ env: {} });
  assert.equal(defaults.server.http_port, 0);
  assert.deepEqual(defaults.server.tls, {
    cert_file: "",
    key_file: "",
    acme: {
      enabled: false,
      domains: [],
      email: "",
      directory_url: LETS_ENCRYPT_DIRECTORY,
      ca_file: "",
    },
  });
  assert.equal(LETS_ENCRYPT_DIRECTORY, "https://acme-v02.api.letsencrypt.org/directory");
  const acme = {
    SEALPOST_SERVER_TLS_ACME_ENABLED: "true",
    SEALPOST_SERVER_TLS_ACME_DOMAINS: "Forms.Example.org,www.example.org",
    SEALPOST_SERVER_HTTP_PORT: "80",
  };
  const ok = await loadConfig({ env: acme });
  assert.deepEqual(ok.server.tls.acme.domains, ["forms.example.org", "www.example.org"]);
  const files = { SEALPOST_SERVER_TLS_CERT_FILE: "a.crt", SEALPOST_SERVER_TLS_KEY_FILE: "a.key" };
  assert.equal((await loadConfig({ env: files })).server.tls.cert_file, "a.crt");
  const refusals: [Record<string, string>, RegExp][] = [
    [{ SEALPOST_SERVER_TLS_CERT_FILE: "a.crt" }, /server\.tls\.key_file: .*go together/],
    [{ SEALPOST_SERVER_TLS_KEY_FILE: "a.key" }, /server\.tls\.key_file: .*go together/],
    [{ ...acme, ...files }, /server\.tls\.acme\.enabled: .*exclude each other/],
    [{ ...acme, SEALPOST_SERVER_TLS_ACME_DOMAINS: "" }, /acme\.domains: .*needs/],
    [{ ...acme, SEALPOST_SERVER_TLS_ACME_DOMAINS: "*.example.org" }, /acme\.domains\.0/],
    [{ ...acme, SEALPOST_SERVER_TLS_ACME_DOMAINS: "localhost" }, /acme\.domains\.0/],
    [{ ...acme, SEALPOST_SERVER_HTTP_PORT: "0" }, /server\.http_port: .*acme\.enabled needs/],
    [{ SEALPOST_SERVER_HTTP_PORT: "80" }, /server\.http_port: .*needs TLS/],
    [
      { ...files, SEALPOST_SERVER_HTTP_PORT: "8080" },
      /server\.http_port: server\.http_port must differ/,
    ],
    [{ ...acme, SEALPOST_SERVER_TLS_ACME_EMAIL: "not-an-address" }, /acme\.email/],
    [{ ...acme, SEALPOST_SERVER_TLS_ACME_DIRECTORY_URL: "ftp://ca" }, /acme\.directory_url/],
  ];
  for (const [env, message] of refusals) {
    await assert.rejects(() => loadConfig({ env }), (err: Error) => {
      assert.ok(err instanceof ConfigError, err.message);
      assert.match(err.message, message);
      return true;
    });
  }
});

Deno.test("publicBaseUrl: https by default with TLS on (the first ACME domain, no :443)", async () => {
  const files = { SEALPOST_SERVER_TLS_CERT_FILE: "a.crt", SEALPOST_SERVER_TLS_KEY_FILE: "a.key" };
  const acme = {
    SEALPOST_SERVER_TLS_ACME_ENABLED: "true",
    SEALPOST_SERVER_TLS_ACME_DOMAINS: "forms.example.org,www.example.org",
    SEALPOST_SERVER_HTTP_PORT: "80",
  };
  const at = async (env: Record<string, string>, port?: number) =>
    publicBaseUrl(await loadConfig({ env }), port);
  assert.equal(await at({}), "http://127.0.0.1:8080");
  assert.equal(await at(files), "https://127.0.0.1:8080");
  assert.equal(await at({ ...files, SEALPOST_SERVER_HOST: "0.0.0.0" }, 443), "https://127.0.0.1");
  assert.equal(await at({ ...files, SEALPOST_SERVER_HOST: "::1" }, 8443), "https://[::1]:8443");
  assert.equal(await at(acme, 443), "https://forms.example.org");
  assert.equal(await at(acme, 8443), "https://forms.example.org:8443");
  assert.equal(
    await at({ ...acme, SEALPOST_BASE_URL: "https://forms.example.com/" }, 443),
    "https://forms.example.com",
    "base_url wins",
  );
});
