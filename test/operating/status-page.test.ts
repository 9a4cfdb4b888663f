import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { freePorts, ocpiRequest, REPO_ROOT } from "../support/gateway-process";
import { captureLogs } from "../support/log-capture";
import { LocationsClient } from "../../plugins/locations/client";

/**
 * Issue #14: the status page in a real headless Chromium (Debian's
 * /usr/bin/chromium driven by playwright-core; .ci/run installs it). After
 * traffic between two gateways the CPO's page shows the registered eMSP's
 * live figures, on a phone-sized screen too, with no console error; the
 * screenshots are kept under test-artifacts/ (git-ignored).
 */

const TOKEN_A = "status-token-A-0123456789";
const ADMIN = "status-admin-token-0123456789";
const ARTIFACTS = path.join(REPO_ROOT, "test-artifacts");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

describe("status page in Chromium", () => {
  let cpo: Gateway;
  let emsp: Gateway;
  let cpoUrl: string;
  let browser: Browser;
  const logs = captureLogs("info");

  beforeAll(async () => {
    const [cpoPort, emspPort] = await freePorts(2);
    cpoUrl = `http://127.0.0.1:${cpoPort}`;
    const modules = { locations: { adapter: "local" }, tokens: { adapter: "local" }, commands: { adapter: "local" } };
    cpo = await Gateway.create(
      testGatewayConfig({
        port: cpoPort,
        party: { country_code: "NL", party_id: "CPO", role: "CPO" },
        modules,
        server: { admin_token: ADMIN },
        partners: [{ id: "emsp", token_a: TOKEN_A, versions_url: versionsUrlOf(emspPort) }],
      }),
      { logger: logs.logger },
    );
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
        modules,
        partners: [{ id: "cpo", token_a: TOKEN_A, versions_url: versionsUrlOf(cpoPort), versions: ["2.2.1"] }],
      }),
      { logger: logs.logger },
    );
    await cpo.listen();
    await emsp.listen();
    await emsp.credentials.register("cpo");
    const client = new LocationsClient(emsp.partnerClient);
    for (let i = 0; i < 3; i++) for await (const _ of client.list("cpo")) void _;
    await client.get("cpo", "NOPE");
    // launch() gives Chromium a fresh, empty user data dir of its own (it refuses a --user-data-dir argument)
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([cpo?.close(), emsp?.close()]);
    removeTempDirs();
  });

  it("needs the admin token: the page without it is the login form, and no figure", async () => {
    const answer = await ocpiRequest("GET", `${cpoUrl}/admin/status`);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('name="token"');
    expect(answer.text).not.toContain("emsp");
    expect((await ocpiRequest("GET", `${cpoUrl}/admin/status`, { headers: { Authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    const bearer = await ocpiRequest("GET", `${cpoUrl}/admin/status`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.headers["content-security-policy"]).toContain("default-src 'none'");
  });

  it.each([
    ["desktop", { width: 1280, height: 900 }],
    ["phone", { width: 390, height: 844 }],
  ])("logs in through the form and shows the registered partner's live figures (%s)", async (name, viewport) => {
    const context = await browser.newContext({ viewport, isMobile: name === "phone" });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));

    await page.goto(`${cpoUrl}/admin/status`);
    await page.fill("#token", "not-the-admin-token-0000");
    await page.click("button[type=submit]");
    await page.waitForSelector("[role=alert]");
    await page.fill("#token", ADMIN);
    await Promise.all([page.waitForURL(`${cpoUrl}/admin/status`), page.click("button[type=submit]")]);

    const card = page.locator('section.partner[data-partner="emsp"]');
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain("registered");
    expect(text).toContain("2.2.1");
    expect(text).toContain("EMSP DEEMS");
    // the handshake (versions, details, credentials), 3 pulls of one page and one unknown Location
    expect(await card.locator('[data-figure="requests"]').innerText()).toBe("7");
    expect(await card.locator('[data-figure="error-rate"]').innerText()).toBe("14.3 %");
    expect(await card.locator('[data-figure="latency"]').innerText()).toMatch(/^\d+\.\d ms$/);
    expect(await card.locator("svg rect").count()).toBeGreaterThan(0);
    expect(await page.locator("text=Our parties").count()).toBe(1);
    expect(await page.locator("main").innerText()).toContain("NLCPO");
    // usable on a phone: nothing wider than the screen
    // (runs in the page: `document` is the browser's; the tests compile without the DOM types)
    const overflow = await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
    expect(overflow as number).toBeLessThanOrEqual(0);

    await page.screenshot({ path: path.join(ARTIFACTS, `status-page-${name}.png`), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("leaks no token into the page or the logs", async () => {
    const page = (await ocpiRequest("GET", `${cpoUrl}/admin/status`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text;
    const issued = [(await emsp.registry.get("cpo"))?.tokenToPartner, (await cpo.registry.get("emsp"))?.tokenToPartner];
    for (const secret of [TOKEN_A, ADMIN, ...issued]) expect(page).not.toContain(secret);
    logs.watch(TOKEN_A, ADMIN, ...issued);
    expect(logs.leaks()).toEqual([]);
  });
});
