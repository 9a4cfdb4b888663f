import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import { Gateway } from "../../app/gateway";
import { formatReport, probePartner } from "../../app/probe/probe";
import { gatewayConfigYaml, removeTempDirs, tempDir, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { parseConfig } from "../../config/load-config";
import { freePorts, runCli } from "../support/gateway-process";
import { numberedCpoLocation } from "../support/ocpi-objects";
import { QuirkyCpo } from "../support/quirky-cpo";

/**
 * Issue #14: `ocpi-gateway probe <versions_url> --token <token>` against this
 * gateway (everything passes, no quirk, the default config suggested) and
 * against a deliberately quirky 2.2.1 CPO (raw token only on its modules,
 * pages without X-Total-Count whose Link points back at themselves, local
 * times instead of UTC, off-schema Locations): each quirk found and the
 * config that copes with it suggested; the readable report and --json.
 */

const TOKEN_A = "probe-token-A-0123456789";
const CPO = { country_code: "NL", party_id: "CPO", role: "CPO" as const };

const location = numberedCpoLocation;

describe("probe against this gateway", () => {
  let cpo: Gateway;
  let emsp: Gateway;
  let cpoVersions: string;

  beforeAll(async () => {
    const [cpoPort, emspPort] = await freePorts(2);
    cpoVersions = versionsUrlOf(cpoPort);
    const seed = path.join(tempDir("ocpi-probe-"), "cpo.json");
    fs.writeFileSync(seed, JSON.stringify({ locations: [1, 2, 3, 4, 5].map(location) }));
    const modules = { locations: { adapter: "local" }, tariffs: { adapter: "local" }, tokens: { adapter: "local" }, commands: { adapter: "local" } };
    cpo = await Gateway.create(
      testGatewayConfig({
        port: cpoPort,
        party: CPO,
        modules,
        adapters: { local: { seed } },
        server: { max_page_limit: 2 },
        partners: [
          { id: "emsp", token_a: TOKEN_A, versions_url: versionsUrlOf(emspPort) },
          { id: "newcomer", token_a: "probe-newcomer-token-A-0123" },
        ],
      }),
    );
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
        modules,
        partners: [{ id: "cpo", token_a: TOKEN_A, versions_url: cpoVersions }],
      }),
    );
    await cpo.listen();
    await emsp.listen();
    await emsp.credentials.register("cpo");
  });

  afterAll(async () => {
    await Promise.all([cpo?.close(), emsp?.close()]);
    removeTempDirs();
  });

  it("passes every check with the token a registration gave, and suggests the defaults", async () => {
    const token = (await emsp.registry.get("cpo"))!.tokenToPartner!;
    const report = await probePartner(cpoVersions, token);
    expect(report.checks.filter((c) => c.outcome !== "pass")).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.version).toBe("2.3.0");
    expect(report.quirks).toEqual([]);
    const checks = report.checks.map((c) => c.check);
    for (const check of [
      "versions: token encodings",
      "versions: well-formed",
      "version details: well-formed",
      "locations SENDER: pagination headers",
      "locations SENDER: limit cap",
      "locations SENDER: Link walk",
      "locations SENDER: objects",
      "tariffs SENDER: answers",
      "tokens RECEIVER: answers",
      "commands RECEIVER: answers",
      "clock",
    ])
      expect(checks).toContain(check);
    expect(report.checks.find((c) => c.check === "locations SENDER: Link walk")!.detail).toBe("ended after 3 pages, 5 objects");
    expect(report.checks.find((c) => c.check === "versions: token encodings")!.detail).toBe("accepted: base64 and raw");
    expect(Math.abs(report.clockOffsetMs!)).toBeLessThan(2000);
    expect(report.suggestedConfig).toContain("token_encoding: auto");
    expect(report.suggestedConfig).toContain("strictness: reject");
  });

  it("with token A reaches versions and details only, and says so", async () => {
    const report = await probePartner(cpoVersions, "probe-newcomer-token-A-0123");
    expect(report.passed).toBe(true);
    expect(report.checks.find((c) => c.check === "version details: well-formed")!.outcome).toBe("pass");
    expect(report.checks.filter((c) => c.outcome === "skip").map((c) => c.detail)).toContain("HTTP 401: this token does not reach the modules (token A?)");
  });

  it("fails on an unknown token, and the CLI prints the readable report and --json", async () => {
    expect((await probePartner(cpoVersions, "not-a-token-of-anyone-0000")).passed).toBe(false);
    const token = (await emsp.registry.get("cpo"))!.tokenToPartner!;
    // one "=" with the value: an issued token (base64url) may start with "-", which a separate argument cannot
    const readable = await runCli(["probe", cpoVersions, `--token=${token}`]);
    expect(readable.stderr).toBe("");
    expect(readable.code).toBe(0);
    expect(readable.stdout).toMatch(/^PASS {2}locations SENDER: Link walk: ended after 3 pages, 5 objects$/m);
    expect(readable.stdout).toMatch(/^PASSED: \d+ passed, 0 failed, 0 warnings, 0 skipped$/m);
    expect(readable.stdout).not.toContain(token);
    const json = await runCli(["probe", cpoVersions, `--token=${token}`, "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ versionsUrl: cpoVersions, version: "2.3.0", passed: true, quirks: [] });
    expect((await runCli(["probe", cpoVersions])).code).toBe(2);
  });
});

describe("probe against a quirky partner", () => {
  let partner: QuirkyCpo;
  const TOKEN = "quirky-probe-token-0123456789";

  beforeAll(async () => {
    const [port] = await freePorts(1);
    partner = new QuirkyCpo(port, { country_code: "NL", party_id: "QRK" });
    partner.on("GET", /^\/2\.2\.1\/locations$/, (request) => {
      // its modules take the token only as it is, not Base64-encoded
      if (request.headers.authorization !== `Token ${TOKEN}`) return { status: 401, body: { status_code: 2000, status_message: "Unauthorized", timestamp: "2024-03-01T10:00:00Z" } };
      const objects = [1, 2].map((n) => ({ ...location(n), country_code: "NL", party_id: "QRK", publish: "yes", last_updated: "2024-03-01T11:00:00+01:00" }));
      // a Link back to the page itself, no X-Total-Count, a local-time envelope timestamp
      return {
        headers: { Link: `<${request.url.toString()}>; rel="next"`, "X-Limit": "2" },
        body: { data: objects, status_code: 1000, timestamp: new Date().toISOString().replace("Z", "+00:00") },
      };
    });
    await partner.listen();
  });

  afterAll(async () => {
    await partner?.close();
  });

  it("finds each quirk and suggests the config that copes with it", async () => {
    const report = await probePartner(partner.versionsUrl, TOKEN);
    const text = formatReport(report);
    expect(report.version).toBe("2.2.1");
    expect(report.passed).toBe(false);
    expect(report.quirks).toEqual(
      expect.arrayContaining([
        "modules take the token only raw",
        "locations: lists lack X-Total-Count",
        "locations: the Link walk does not end",
        "timestamps are not written in UTC with Z",
        "locations: objects off the 2.2.1 schema",
      ]),
    );
    expect(text).toMatch(/^FAIL {2}locations SENDER: Link walk: page 2 links back to a page already read$/m);
    expect(text).toMatch(/^FAIL {2}locations SENDER: pagination headers: missing X-Total-Count$/m);
    expect(text).toMatch(/^FAIL {2}locations SENDER: objects: 2 of 2 invalid for 2\.2\.1, e\.g\. .*\/publish: /m);
    expect(text).toMatch(/^PASS {2}commands RECEIVER: answers: HTTP 404, status_code 2000$/m);
    expect(report.suggestedConfig).toContain("token_encoding: raw");
    expect(report.suggestedConfig).toContain("strictness: repair");
    expect(report.suggestedConfig).toContain('versions: ["2.2.1"]');
    // the suggestion is a partners[] entry the gateway loads as it is (the config's own type and rules)
    const loaded = parseConfig(gatewayConfigYaml({ port: 9 }).replace(/^partners:.*$/m, "") + report.suggestedConfig.replace("<partner id>", "quirky"), {}, "<suggested>");
    expect(loaded.partners[0]).toMatchObject({ id: "quirky", token_encoding: "raw", strictness: "repair", versions: ["2.2.1"] });
    expect(text).toMatch(/^FAILED: /m);
  });
});

/**
 * Issue #25 item 1: a partner whose first page holds 2 of X-Total-Count 3
 * Locations (X-Limit 2) and sends no Link. OCPI 2.2.1 Transport and format,
 * Pagination requires a Link rel="next" while more objects remain: a FAIL,
 * named in --json, exit 1. The message says whether our sync pull copes: it
 * asks on by offset (core/client/next-page.ts), which reaches the third
 * object when the partner honours offset, and fails the pull when it answers
 * the first page again.
 */
describe("probe against a partner whose first page sends no Link although X-Total-Count says more remain", () => {
  const TOKEN = "linkless-probe-token-0123456789";
  const owner = { country_code: "NL", party_id: "LNK" };
  const LOCATIONS = [1, 2, 3].map((n) => ({ ...location(n), ...owner }));
  let honours: QuirkyCpo;
  let ignores: QuirkyCpo;

  /** Pages of 2 without Link; `offset` honoured or not. */
  const linkless = (partner: QuirkyCpo, honoursOffset: boolean) =>
    partner.on("GET", /^\/2\.2\.1\/locations$/, (request) => {
      const offset = honoursOffset ? Number(request.url.searchParams.get("offset") ?? 0) : 0;
      return { headers: { "X-Total-Count": "3", "X-Limit": "2" }, body: { data: LOCATIONS.slice(offset, offset + 2), status_code: 1000, timestamp: new Date().toISOString() } };
    });

  beforeAll(async () => {
    const [a, b] = await freePorts(2);
    honours = new QuirkyCpo(a, owner);
    ignores = new QuirkyCpo(b, owner);
    linkless(honours, true);
    linkless(ignores, false);
    await Promise.all([honours.listen(), ignores.listen()]);
  });

  afterAll(async () => {
    await Promise.all([honours?.close(), ignores?.close()]);
  });

  const linkCheck = (report: { checks: { check: string; outcome: string; detail: string }[] }) =>
    report.checks.find((c) => c.check === "locations SENDER: Link to the next page");

  it("fails it naming the rule, exit 1 and named in --json; our pull asks on by offset and reads all 3", async () => {
    const json = await runCli(["probe", honours.versionsUrl, `--token=${TOKEN}`, "--json"]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.passed).toBe(false);
    expect(linkCheck(report)).toEqual({
      outcome: "fail",
      check: "locations SENDER: Link to the next page",
      detail:
        'page 1 holds 2 objects (2 read) of X-Total-Count 3 and sends no Link rel="next", which OCPI 2.2.1 Transport and format, Pagination requires while more objects remain: a client following Links loses 1; our sync pull asks on with offset=2 (tolerant reader) and reads all 3',
    });
    expect(report.quirks).toContain('locations: pages with more objects after them send no Link rel="next"');
    expect(report.checks.find((c: { check: string }) => c.check === "locations SENDER: Link walk")).toMatchObject({ outcome: "pass", detail: "ended after 2 pages, 3 objects" });
    expect(honours.received("GET", /\/locations$/).map((r) => r.url.searchParams.get("offset"))).toEqual([null, "2"]);
    // the only failure: everything else about this partner is to spec
    expect(report.checks.filter((c: { outcome: string }) => c.outcome === "fail")).toHaveLength(1);
    const readable = await runCli(["probe", honours.versionsUrl, `--token=${TOKEN}`]);
    expect(readable.code).toBe(1);
    expect(readable.stdout).toMatch(/^FAIL {2}locations SENDER: Link to the next page: page 1 holds 2 objects .* requires while more objects remain/m);
    expect(readable.stdout).toMatch(/^FAILED: /m);
  });

  it("says our pull fails too when the partner answers offset=2 with the first page again", async () => {
    const report = await probePartner(ignores.versionsUrl, TOKEN);
    expect(report.passed).toBe(false);
    expect(linkCheck(report)).toMatchObject({ outcome: "fail" });
    expect(linkCheck(report)!.detail).toMatch(
      /sends no Link rel="next", which OCPI 2\.2\.1 Transport and format, Pagination requires while more objects remain: a client following Links loses 1; our sync pull asks on with offset=2, but the partner answers it with the page already read: the pull fails \(its watermark stays\) and cannot reach the other 1$/,
    );
    expect(report.quirks).toContain('locations: pages with more objects after them send no Link rel="next", and offset is ignored');
    expect(report.checks.find((c) => c.check === "locations SENDER: Link walk")).toMatchObject({ outcome: "warn", detail: "ended after 1 page with 2 objects; X-Total-Count said 3" });
  });
});
