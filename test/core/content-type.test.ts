import http from "node:http";
import { startHarness, type Harness } from "../support/module-harness";
import { TokensPlugin } from "../../plugins/tokens/module";
import { localTokens } from "../../adapters/local/tokens";
import type { Strictness } from "../../config/types";

/**
 * A body whose Content-Type is not JSON (issue #8, item 8): refused with
 * 2001 naming the Content-Type under `strictness: reject`, nothing stored;
 * accepted and logged once under a lenient setting. A body sent without
 * a Content-Type is accepted (many partners omit it).
 */

const token = (uid: string) => ({
  country_code: "DE",
  party_id: "EMS",
  uid,
  type: "RFID",
  contract_id: `DE-EMS-${uid}`,
  issuer: "Test issuer",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: "2026-01-01T00:00:00Z",
});

const harnesses: Harness[] = [];
const start = async (strictness: Strictness) => {
  const h = await startHarness({ plugins: [TokensPlugin], localModules: [localTokens], modules: ["tokens"], strictness });
  harnesses.push(h);
  return h;
};
/** The gateway under `strictness: reject`, started by the first test that needs it and shared by the others. */
let rejecting: Promise<Harness> | undefined;
const underReject = (): Promise<Harness> => (rejecting ??= start("reject"));
afterAll(async () => {
  for (const h of harnesses) await h.close();
});

const put = (h: Harness, uid: string, contentType?: string) => {
  const req = h.http.put(h.path("2.2.1", "RECEIVER", "tokens", `/DE/EMS/${uid}`)).set("Authorization", h.auth);
  if (contentType) req.set("Content-Type", contentType);
  return req.send(JSON.stringify(token(uid)));
};
const get = (h: Harness, uid: string) => h.http.get(h.path("2.2.1", "RECEIVER", "tokens", `/DE/EMS/${uid}`)).set("Authorization", h.auth);

describe("Content-Type of a body", () => {
  it("strictness reject: text/plain is refused with 2001 naming the Content-Type, and nothing is stored", async () => {
    const h = await underReject();
    const response = await put(h, "T1", "text/plain");
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/Content-Type text\/plain is not application\/json/);
    expect((await get(h, "T1")).status).toBe(404);
  });

  it("strictness reject: application/json (with parameters) and +json types are taken", async () => {
    const h = await underReject();
    expect((await put(h, "T2", "application/json; charset=utf-8")).body.status_code).toBe(1000);
    expect((await put(h, "T3", "application/vnd.partner+json")).body.status_code).toBe(1000);
  });

  it("a body sent without any Content-Type is read as JSON (many partners omit it)", async () => {
    const h = await underReject();
    const port = await h.gateway.listen();
    const body = JSON.stringify(token("T6"));
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, method: "PUT", path: h.path("2.2.1", "RECEIVER", "tokens", "/DE/EMS/T6"), headers: { Authorization: h.auth, "Content-Length": Buffer.byteLength(body) } },
        (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve(JSON.parse(text).status_code));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(status).toBe(1000);
    expect((await get(h, "T6")).body.data.uid).toBe("T6");
  });

  it("strictness log: text/plain is accepted and logged once per partner and type", async () => {
    const h = await start("log");
    expect((await put(h, "T4", "text/plain")).body.status_code).toBe(1000);
    expect((await put(h, "T5", "text/plain")).body.status_code).toBe(1000);
    expect((await get(h, "T4")).body.data.uid).toBe("T4");
    expect(h.logs.filter((l) => l.includes("Content-Type other than JSON"))).toHaveLength(1);
  });
});
