// Loads a docs page in headless Chromium (puppeteer-core) at each viewport and reports, as one
// JSON object on stdout, what tests/it/browser.rs asserts: axe-core's violations, console errors,
// failed requests, sideways overflow, the ranked table's box, and the table's rows as rendered.
// Usage: node docs_page.mjs PUPPETEER_MODULES AXE_MODULES CHROMIUM PROFILE_DIR URL WxH...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const [puppeteerDir, axeDir, chromium, profile, url, ...viewports] = process.argv.slice(2);
const puppeteer = createRequire(`${resolve(puppeteerDir)}/`)("puppeteer-core");
const axePath = createRequire(`${resolve(axeDir)}/`).resolve("axe-core/axe.min.js");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: profile,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

async function visit(width, height) {
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  const consoleErrors = [];
  const failedRequests = [];
  const requests = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => consoleErrors.push(`page error: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  page.on("requestfailed", (r) => failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.url()}: ${r.status()}`);
  });
  await page.goto(url, { waitUntil: "networkidle0" });
  // The icon is asked for after load; give the browser a moment to ask.
  await new Promise((done) => setTimeout(done, 300));

  const layout = await page.evaluate(() => {
    const root = document.documentElement;
    const view = window.innerWidth;
    const box = document.querySelector("#ranked-table");
    // Elements reaching past the right edge, outside a table's own scrolling box.
    const wide = [...document.body.querySelectorAll("*")]
      .filter((e) => !(e.parentElement && e.parentElement.closest(".scroll")))
      .filter((e) => e.getBoundingClientRect().right > view + 0.5)
      .map((e) => `${e.tagName.toLowerCase()}${e.getAttribute("class") ? "." + e.getAttribute("class") : ""}: right ${Math.round(e.getBoundingClientRect().right)}`)
      .slice(0, 10);
    const rows = [...document.querySelectorAll("tr[data-model-id]")].map((tr) => ({
      id: tr.getAttribute("data-model-id"),
      cells: Object.fromEntries(
        [...tr.querySelectorAll("td[data-field]")].map((td) => [
          td.getAttribute("data-field"),
          [td.getAttribute("data-value"), td.innerText.trim()],
        ]),
      ),
    }));
    return {
      innerWidth: view,
      scrollHeight: root.scrollHeight,
      sampleNotice: document.querySelector("#sample") !== null,
      scrollWidth: root.scrollWidth,
      overflowPx: Math.max(0, root.scrollWidth - view),
      wide,
      table: box && {
        right: Math.round(box.getBoundingClientRect().right),
        scrolls: box.scrollWidth > box.clientWidth,
      },
      rows,
    };
  });

  // Issue 50: where the first chart is on the first screen (page coordinates, unscrolled), and
  // whether the table's header row and model column stay in view when its box is scrolled
  // down and right (CSS sticky within the box).
  const glance = await page.evaluate(() => {
    const chart = document.querySelector("#share-chart svg");
    const box = document.querySelector("#ranked-table");
    const first = chart && chart.getBoundingClientRect();
    const out = {
      firstChart: first && { top: Math.round(first.top + window.scrollY), bottom: Math.round(first.bottom + window.scrollY), width: Math.round(first.width) },
      textColumn: Math.round(document.querySelector("p.lede").getBoundingClientRect().width),
      sticky: null,
    };
    if (box) {
      box.scrollTop = 400;
      box.scrollLeft = 1000;
      const boxRect = box.getBoundingClientRect();
      const th = box.querySelector("thead th").getBoundingClientRect();
      const rows = [...box.querySelectorAll("tbody tr")];
      // A row in view of the box after the scroll: its model cell must be at the box's left.
      const visible = rows.find((tr) => {
        const r = tr.getBoundingClientRect();
        return r.top > th.bottom && r.bottom < boxRect.bottom;
      }) || rows[rows.length - 1];
      const model = visible.querySelector("td.model").getBoundingClientRect();
      out.sticky = {
        scrolledDown: box.scrollTop,
        scrolledRight: box.scrollLeft,
        headerTopOffset: Math.round(th.top - boxRect.top),
        modelLeftOffset: Math.round(model.left - boxRect.left),
      };
      box.scrollTop = 0;
      box.scrollLeft = 0;
    }
    return out;
  });

  // Screenshots for a person to look at, when asked (scripts/screenshot.sh's job in CI-less use).
  if (process.env.DOCS_PAGE_SCREENSHOTS) {
    await page.screenshot({ path: `${process.env.DOCS_PAGE_SCREENSHOTS}/docs-${width}.png`, fullPage: true });
  }
  // axe-core runs in the page; the page itself has no script, and its Content-Security-Policy
  // refuses a <script> element (issue 50), so axe is evaluated through the DevTools protocol,
  // which the policy does not govern, rather than added as a tag.
  await page.evaluate(readFileSync(axePath, "utf8"));
  const axe = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags } }),
    TAGS,
  );
  await page.close();
  return {
    width,
    height,
    violations: axe.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(" ")),
    })),
    passes: axe.passes.length,
    consoleErrors,
    failedRequests,
    requests,
    ...layout,
    ...glance,
  };
}

const results = [];
for (const size of viewports) {
  const [width, height] = size.split("x").map(Number);
  results.push(await visit(width, height));
}
const version = await browser.version();
await browser.close();
console.log(JSON.stringify({ url, browser: version, results }));
