import assert from "node:assert/strict";
import { Registry } from "../../src/metrics/index.ts";

Deno.test("registry: HELP and TYPE per family, labels escaped, counters add up", async () => {
  const registry = new Registry();
  const requests = registry.counter("x_requests_total", "Requests\nserved");
  requests.inc({ route: "/a", status: "200" });
  requests.inc({ route: "/a", status: "200" }, 2);
  requests.inc({ route: 'q"\\\n', status: "500" });
  assert.equal(requests.get({ route: "/a", status: "200" }), 3);
  const text = await registry.render();
  assert.equal(
    text,
    "# HELP x_requests_total Requests\\nserved\n" +
      "# TYPE x_requests_total counter\n" +
      'x_requests_total{route="/a",status="200"} 3\n' +
      'x_requests_total{route="q\\"\\\\\\n",status="500"} 1\n',
  );
});

Deno.test("registry: collectors set gauges at each scrape; a cleared gauge drops old series", async () => {
  const registry = new Registry();
  const depth = registry.gauge("x_depth", "Depth");
  let fingerprints = ["a", "b"];
  registry.collect(() => {
    depth.clear();
    for (const fp of fingerprints) depth.set({ fp }, fp.charCodeAt(0));
  });
  assert.match(await registry.render(), /x_depth\{fp="a"\} 97\nx_depth\{fp="b"\} 98\n/);
  fingerprints = ["b"];
  const text = await registry.render();
  assert.ok(!text.includes('fp="a"'), text);
  assert.match(text, /x_depth\{fp="b"\} 98\n/);
});

Deno.test("registry: histograms are cumulative with +Inf, sum and count", async () => {
  const registry = new Registry();
  const lag = registry.histogram("x_lag_seconds", "Lag", [0.1, 1]);
  lag.observe({}, 0.05);
  lag.observe({}, 0.5);
  lag.observe({}, 5);
  const text = await registry.render();
  assert.ok(text.includes("# TYPE x_lag_seconds histogram\n"), text);
  assert.ok(text.includes('x_lag_seconds_bucket{le="0.1"} 1\n'), text);
  assert.ok(text.includes('x_lag_seconds_bucket{le="1"} 2\n'), text);
  assert.ok(text.includes('x_lag_seconds_bucket{le="+Inf"} 3\n'), text);
  assert.ok(text.includes("x_lag_seconds_sum 5.55\n"), text);
  assert.ok(text.includes("x_lag_seconds_count 3\n"), text);
});

Deno.test("registry: a name registered twice is refused", () => {
  const registry = new Registry();
  registry.gauge("x", "X");
  assert.throws(() => registry.counter("x", "X"), /registered twice/);
});

Deno.test("registry: scrapes at once run one after the other, each complete", async () => {
  const registry = new Registry();
  const depth = registry.gauge("x_depth", "Depth");
  registry.collect(async () => {
    depth.clear();
    for (const fp of ["a", "b", "c"]) {
      await new Promise((r) => setTimeout(r, 5));
      depth.set({ fp }, 1);
    }
  });
  const texts = await Promise.all([registry.render(), registry.render(), registry.render()]);
  for (const text of texts) {
    assert.equal(text.split("\n").filter((l) => l.startsWith("x_depth{")).length, 3);
  }
});
