// Proves the API reference page renders its endpoints in a real browser, at /swagger and
// /swagger/, with no request leaving the machine and none of Scalar's cloud buttons.
// Needs Debian's Chromium: apt-get install -y chromium (see the README).
import { expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startTestApi } from "../testing.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** Labels of Scalar's cloud features, which page.ts turns off. */
const CLOUD_LABELS = ["Ask AI", "Generate MCP", "Deploy", "Open in API Client", "Share"];

const api = await startTestApi();

for (const pagePath of ["/swagger", "/swagger/"]) {
  test(`${pagePath} shows the endpoints, offline`, async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `No Chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
      );
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-background-networking"],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const requested: string[] = [];
      const outside: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      // Anything not addressed to this machine is refused before it leaves, and recorded.
      await page.route("**/*", (route) => {
        const url = new URL(route.request().url());
        const local = url.protocol === "data:" || url.protocol === "blob:";
        if (local || LOCAL_HOSTS.has(url.hostname)) return route.continue();
        outside.push(url.href);
        return route.abort();
      });
      await page.goto(`${api.url}${pagePath}`, { waitUntil: "load" });
      // The document was fetched and rendered: its title, then the first tag's operations.
      await page
        .getByRole("heading", { name: "Media gateway API" })
        .waitFor({ state: "visible", timeout: 30_000 });
      await page
        .getByText("Generate images; answers when the task is finished")
        .first()
        .waitFor({ state: "visible", timeout: 30_000 });
      await page
        .getByText("/v1/images/generations")
        .first()
        .waitFor({ state: "visible", timeout: 30_000 });
      await page.waitForLoadState("networkidle");
      const screenshot = join(tmpdir(), `swagger-page-${pagePath.length}-${Date.now()}.png`);
      await page.screenshot({ path: screenshot, fullPage: false });
      console.log(`screenshot of ${pagePath}: ${screenshot}`);
      const png = await Bun.file(screenshot).bytes();
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(statSync(screenshot).size).toBeGreaterThan(30_000);

      expect(outside).toEqual([]);
      expect(requested).toContain(`${api.url}/swagger/json`);
      expect(requested).toContain(`${api.url}/swagger/assets/scalar.js`);
      for (const label of CLOUD_LABELS) {
        const shown = await page.getByText(label, { exact: true }).first().isVisible();
        expect({ label, shown }).toEqual({ label, shown: false });
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
}
