// Looks at a link as a student would (issue 56): opens it in headless Chromium with WebGPU
// at a given window size, takes a screenshot every few seconds into OUT_DIR, and prints
// the page's long tasks and what its console said. A tool for people, not a test.
// Usage: node look.mjs SITE_DIR QUERY WIDTHxHEIGHT OUT_DIR [SECONDS] [EVERY]
import { mkdirSync } from "node:fs";
import { chromium } from "playwright-core";
import { serveSite } from "./serve.mjs";

const [site, query, size, out, seconds = "60", every = "10"] = process.argv.slice(2);
const [width, height] = size.split("x").map(Number);
mkdirSync(out, { recursive: true });
const { server, url } = await serveSite(site);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--enable-unsafe-webgpu"],
});
try {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on("console", (m) => console.log(`console: ${m.text().slice(0, 200)}`));
  page.on("pageerror", (e) => console.log(`page error: ${e}`));
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longTasks.push([e.startTime, e.duration])))
      .observe({ type: "longtask", buffered: true });
  });
  const t0 = Date.now();
  await page.goto(url(query));
  for (let s = 0; s <= Number(seconds); s += Number(every)) {
    await page.waitForTimeout(Math.max(0, t0 + s * 1000 - Date.now()));
    const file = `${out}/at-${String(s).padStart(3, "0")}s.png`;
    await page.screenshot({ path: file });
    const dark = await page.evaluate(() => !!document.querySelector("#pdes-loading"));
    console.log(`${file}${dark ? " (loading… shown)" : ""}`);
  }
  const tasks = await page.evaluate(() => window.__longTasks);
  for (const [start, d] of tasks) if (d > 250) console.log(`long task at ${Math.round(start)} ms: ${Math.round(d)} ms`);
  console.log(`${tasks.length} long tasks over 50 ms`);
} finally {
  await browser.close();
  server.close();
}
