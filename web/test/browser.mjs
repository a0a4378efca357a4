// The browser build, tested in a real browser: serves web/site on 127.0.0.1, opens a link
// in headless Chromium, lets the run reach its end time on the page's CPU engine, and
// compares the summary the page writes to the console with `pdes-lab run` of the same
// preset and assignments, field for field (all but the wall-clock fields). Saves a
// screenshot. With a fifth argument `verify`, also waits for the page's GPU check (the
// line "pdes-lab verify: N passed, M failed on …" the page writes when its start-up
// comparison of the WebGPU engines with their CPU twins ends) and requires N > 0, M = 0.
// Usage: node browser.mjs SITE_DIR PDES_LAB_BINARY SCREENSHOT.png QUERY [verify]
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { serveSite } from "./serve.mjs";

const [site, nativeBinary, screenshot, query, expectVerify] = process.argv.slice(2);
if (!query) {
  console.error("usage: node browser.mjs SITE_DIR PDES_LAB_BINARY SCREENSHOT.png QUERY");
  process.exit(2);
}
const { server, url: addressOf } = await serveSite(site);
const url = addressOf(query);

// what works with no GPU (Chromium 148, Debian): WebGL2 through ANGLE on SwiftShader, and
// WebGPU on SwiftShader's Vulkan with --enable-unsafe-webgpu (an adapter with 10 storage
// buffers per shader stage; navigator.gpu needs a secure context: 127.0.0.1 is one)
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  // WebGPU only for the link that checks the GPU: the others run where a browser offers
  // none (the page must start and run on the CPU there, and says why)
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"].concat(
    expectVerify === "verify" ? ["--enable-unsafe-webgpu"] : [],
  ),
});
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const lines = [];
  let summary = null;
  let verified = null;
  page.on("console", (m) => {
    const text = m.text();
    lines.push(text);
    if (text.startsWith("pdes-lab summary: ")) summary = JSON.parse(text.slice(18));
    if (text.startsWith("pdes-lab verify: ")) verified = text.slice(17);
  });
  page.on("pageerror", (e) => lines.push(`page error: ${e}`));
  // the tasks that held the page's one thread for over 50 ms (Chromium's long tasks): a
  // frozen page is one long task; reported, not asserted (timing differs by machine)
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longTasks.push(e.duration)))
      .observe({ type: "longtask", buffered: true });
  });
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector("#pdes-loading", { state: "detached", timeout: 60_000 });
  const started = Date.now() - t0;
  const deadline = Date.now() + 180_000;
  while (summary === null && Date.now() < deadline) await page.waitForTimeout(200);
  const ran = Date.now() - t0;
  if (expectVerify === "verify") {
    const until = Date.now() + 900_000; // SwiftShader on two cores: about 5 min for every model
    while (verified === null && Date.now() < until) await page.waitForTimeout(500);
    if (verified === null) throw new Error(`no GPU check within 900 s; console:\n${lines.join("\n")}`);
    const m = /^(\d+) passed, (\d+) failed/.exec(verified);
    if (!m || Number(m[1]) === 0 || Number(m[2]) !== 0) {
      throw new Error(`the page's GPU check: ${verified}\n${lines.filter((l) => l.startsWith("  failed")).join("\n")}`);
    }
    console.log(`the page's GPU check after ${Date.now() - t0} ms: ${verified}`);
    const tasks = await page.evaluate(() => window.__longTasks);
    const over = (ms) => tasks.filter((d) => d > ms).length;
    console.log(`long tasks until then: ${tasks.length} over 50 ms, ${over(250)} over 250 ms, ${over(1000)} over 1 s, the longest ${Math.round(Math.max(0, ...tasks))} ms`);
  }
  await page.screenshot({ path: screenshot });
  const failure = await page.textContent("#pdes-failure");
  if (failure) throw new Error(`the page says: ${failure}`);
  if (summary === null) throw new Error(`no summary within 180 s; console:\n${lines.join("\n")}`);

  // the same run natively
  const parsed = new URLSearchParams(query);
  const args = ["run", parsed.get("preset"), "--format", "json"];
  for (const [k, v] of parsed) if (k.includes(".")) args.push("--set", `${k}=${v}`);
  const native = JSON.parse(execFileSync(nativeBinary, args, { encoding: "utf8" }));
  const wall = (k) => k === "wall_seconds" || k === "engine_seconds" || k.endsWith("_per_second");
  const want = Object.keys(native).filter((k) => !wall(k));
  const got = Object.keys(summary).filter((k) => !wall(k));
  const differ = [];
  if (want.join() !== got.join()) differ.push(`fields: page ${got.join()} / native ${want.join()}`);
  for (const k of want) {
    if (JSON.stringify(summary[k]) !== JSON.stringify(native[k])) {
      differ.push(`${k}: page ${JSON.stringify(summary[k])}, native ${JSON.stringify(native[k])}`);
    }
  }
  // the page keeps its settings: the bare address (no query) reopens the same run
  const first = JSON.stringify(summary);
  summary = null;
  verified = null;
  await page.goto(url.slice(0, url.indexOf("?")));
  const again = Date.now() + 180_000;
  while (summary === null && Date.now() < again) await page.waitForTimeout(200);
  if (JSON.stringify(summary) !== first) {
    throw new Error(`the bare address did not reopen the stored run: ${JSON.stringify(summary)} / ${first}`);
  }
  summary = JSON.parse(first);
  if (expectVerify === "verify") {
    // the check passed on the first visit: the second trusts it at once (local storage)
    const by = Date.now() + 30_000;
    while (verified === null && Date.now() < by) await page.waitForTimeout(200);
    if (!verified || !verified.startsWith("remembered: ")) {
      throw new Error(`the second visit did not remember the GPU check: ${verified}`);
    }
    console.log(`the second visit: ${verified}`);
  }
  console.log(`page started (wasm loaded, window created) after ${started} ms; run finished after ${ran} ms; the bare address reopened the same run from local storage`);
  console.log(`compared ${want.length} fields with \`pdes-lab ${args.join(" ")}\``);
  if (differ.length) {
    failed = true;
    console.error(`the page's run differs from the native run:\n  ${differ.join("\n  ")}`);
  } else {
    console.log(`identical: ${want.map((k) => `${k}=${JSON.stringify(native[k])}`).join(", ")}`);
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);
