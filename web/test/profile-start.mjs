// Where a page's start goes (issue 56 §2: one long task of 12–20 s on SwiftShader): opens
// a link in headless Chromium with WebGPU, samples the page's main thread with the V8
// profiler (CDP) from navigation until SECONDS after "loading…" went, and prints the long
// tasks and the functions that held the thread longest (self and total time). A tool for
// people, not a test. Usage: node profile-start.mjs SITE_DIR QUERY [SECONDS]
import { chromium } from "playwright-core";
import { serveSite } from "./serve.mjs";

const [site, query, seconds = "5"] = process.argv.slice(2);
const { server, url } = await serveSite(site);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--enable-unsafe-webgpu"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on("console", (m) => console.log(`console: ${m.text().slice(0, 160)}`));
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longTasks.push([e.startTime, e.duration])))
      .observe({ type: "longtask", buffered: true });
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 1000 });
  await cdp.send("Profiler.start");
  const t0 = Date.now();
  await page.goto(url(query));
  await page.waitForSelector("#pdes-loading", { state: "detached", timeout: 120_000 });
  console.log(`"loading…" gone after ${Date.now() - t0} ms`);
  await page.waitForTimeout(Number(seconds) * 1000);
  const { profile } = await cdp.send("Profiler.stop");
  const tasks = await page.evaluate(() => window.__longTasks);
  for (const [start, d] of tasks) if (d > 250) console.log(`long task at ${Math.round(start)} ms: ${Math.round(d)} ms`);
  // self time per function, and total (self + callees) per function
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const dt = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const self = new Map();
  const total = new Map();
  for (const id of profile.samples) {
    const n = byId.get(id);
    const name = n.callFrame.functionName || `(${n.callFrame.url.split("/").pop() || "program"})`;
    self.set(name, (self.get(name) ?? 0) + dt);
    const seen = new Set();
    for (let k = id; k !== undefined; k = parent.get(k)) {
      const f = byId.get(k).callFrame.functionName || "(anonymous)";
      if (!seen.has(f)) total.set(f, (total.get(f) ?? 0) + dt), seen.add(f);
    }
  }
  const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([f, ms]) => `  ${Math.round(ms)} ms  ${f.slice(0, 140)}`).join("\n");
  console.log(`self time:\n${top(self, 25)}\ntotal time:\n${top(total, 40)}`);
} finally {
  await browser.close();
  server.close();
}
