import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { startHarness, type Harness } from "../support/module-harness";
import { REPO_ROOT } from "../support/gateway-process";
import { example230, post, receiverOptions } from "../modules/cdrs.fixtures";

/**
 * The CDR audit on the status page (issue #27), in a real headless Chromium as test/operating/status-page.test.ts
 * drives it: a CPO partner pushes CDRs to a serving gateway, whose audit worker (running since `listen()`)
 * audits them; the partner's card shows the CDRs audited in the last day and the mismatches, in red.
 */
const ADMIN = "status-audit-admin-token-0123";
const ARTIFACTS = path.join(REPO_ROOT, "test-artifacts");
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let h: Harness;
let browser: Browser;
let url: string;

beforeEach(async () => {
  h = await startHarness(receiverOptions({ adminToken: ADMIN }));
  url = `http://127.0.0.1:${await h.gateway.listen()}`;
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});
afterEach(async () => {
  await browser?.close();
  await h?.close();
});

it("shows per partner the CDRs audited in the last day and the mismatches", async () => {
  for (const [id, total] of [["S1", 4], ["S2", 4], ["S3", 3.5]] as const)
    expect((await post(h, "2.3.0", { ...example230(), id, total_cost: { before_taxes: total, taxes: [{ name: "VAT", amount: 0.4 }] } })).status).toBe(201);
  // the worker runs in the background of the serving gateway
  for (let i = 0; i < 300; i++) {
    const listed = await h.http.get("/admin/v1/audit/cdrs").set("Authorization", `Bearer ${ADMIN}`);
    if (listed.body.data?.total === 3) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`${message.type()}: ${message.text()}`);
  });
  await page.goto(`${url}/admin/status`);
  await page.fill("#token", ADMIN);
  await Promise.all([page.waitForURL(`${url}/admin/status`), page.click("button[type=submit]")]);
  const card = page.locator('section.partner[data-partner="partner"]');
  await card.waitFor();
  expect(await card.locator('[data-figure="cdrs-audited"]').innerText()).toBe("3");
  const mismatches = card.locator('[data-figure="cdr-mismatches"]');
  expect(await mismatches.innerText()).toBe("1");
  expect(await mismatches.getAttribute("class")).toBe("bad");
  expect(await card.innerText()).toContain("CDR mismatches, 24 h");
  await page.screenshot({ path: path.join(ARTIFACTS, "status-page-audit.png"), fullPage: true });
  expect(problems).toEqual([]);
  await context.close();
});
