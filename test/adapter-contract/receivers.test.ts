import type { PortName } from "../../adapters/kit";
import { adapterName, loadFixture } from "./fixture";
import { startContractGateway, type ContractGateway } from "./gateway";
import { cdr, IN_SCOPE, location, minute, PARTNER_CPO, session, tariff, token } from "./data";

/**
 * Receiver ports, through the gateway's HTTP surface: what a partner pushes
 * is stored under its owner and read back as sent; a PUT answers 201 for a
 * new object and 200 for a replaced one; ids are CiStrings; PATCHes are
 * merged whether or not the port has the atomic `update`; CDRs are never
 * replaced (plugins/<module>/ports.ts, core/modules/update-stored.ts).
 */
type Json = Record<string, any>;
type PutModule = "locations" | "sessions" | "tariffs" | "tokens";

const fixture = loadFixture();
const implemented = (port: PortName) => fixture.factory.portNames.includes(port);

/** One object per module as the partner owns it, with an id in mixed case. */
const PUSHED: Record<PutModule, (id: string, stamp: string) => Json> = {
  locations: (id, stamp) => location(PARTNER_CPO, id, stamp),
  sessions: (id, stamp) => session(PARTNER_CPO, id, IN_SCOPE, stamp),
  tariffs: (id, stamp) => tariff(PARTNER_CPO, id, stamp),
  tokens: (id, stamp) => token(IN_SCOPE, id, stamp),
};
/** The path of an object below the module's Receiver URL. */
const objectPath = (module: PutModule, o: Json, id = module === "tokens" ? o.uid : o.id): string =>
  `/${o.country_code}/${o.party_id}/${encodeURIComponent(id)}${module === "tokens" ? `?type=${o.type}` : ""}`;
const withId = (module: PutModule, o: Json, id: string): Json => (module === "tokens" ? { ...o, uid: id } : { ...o, id });
const flipCase = (id: string): string => [...id].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");

describe(`adapter contract: Receiver ports of "${adapterName()}"`, () => {
  let g: ContractGateway;
  beforeAll(async () => {
    g = await startContractGateway();
  });
  afterAll(() => g?.close());

  const call = (method: "get" | "put" | "patch" | "delete" | "post", url: string, body?: Json) => {
    const req = g.http[method](url).set("Authorization", g.auth);
    return body ? req.send(body) : req;
  };
  const receiver = (module: string, rest = "") => g.path("RECEIVER", module, rest);

  const modules = (["locations", "sessions", "tariffs", "tokens"] as const).filter((m) => implemented(`${m}.RECEIVER`));
  if (modules.length === 0 && !implemented("cdrs.RECEIVER")) it.todo("implements no Receiver port");

  describe.each(modules)("%s Receiver", (module) => {
    it("PUT of a new object answers 201, a GET returns it as sent; a second PUT answers 200 and replaces it", async () => {
      const first = PUSHED[module]("Rt-New-1", minute(100));
      const created = await call("put", receiver(module, objectPath(module, first)), first);
      expect({ status: created.status, code: created.body.status_code }).toEqual({ status: 201, code: 1000 });
      expect((await call("get", receiver(module, objectPath(module, first)))).body.data).toEqual(first);
      const second = { ...PUSHED[module]("Rt-New-1", minute(110)) };
      const replaced = await call("put", receiver(module, objectPath(module, second)), second);
      expect({ status: replaced.status, code: replaced.body.status_code }).toEqual({ status: 200, code: 1000 });
      expect((await call("get", receiver(module, objectPath(module, second)))).body.data).toEqual(second);
    });

    it("ids are CiStrings: a GET in other letter case finds the object, a PUT in other case replaces it (200), never a second one", async () => {
      const original = PUSHED[module]("Ci-Case-1", minute(100));
      expect((await call("put", receiver(module, objectPath(module, original)), original)).status).toBe(201);
      const found = await call("get", receiver(module, objectPath(module, original, flipCase("Ci-Case-1"))));
      expect(found.status).toBe(200);
      expect(found.body.data).toEqual(original);
      const upper = withId(module, PUSHED[module]("Ci-Case-1", minute(120)), "CI-CASE-1");
      const replaced = await call("put", receiver(module, objectPath(module, upper)), upper);
      expect(replaced.status).toBe(200);
      expect((await call("get", receiver(module, objectPath(module, original, "ci-case-1")))).body.data).toEqual(upper);
    });

    it("GET of an unknown object is 404", async () => {
      const unknown = PUSHED[module]("No-Such-Object", minute(100));
      expect((await call("get", receiver(module, objectPath(module, unknown)))).status).toBe(404);
    });

    if (module === "tariffs")
      it("DELETE removes a tariff (then 404); DELETE of an unknown one is 404", async () => {
        const pushed = PUSHED.tariffs("Del-1", minute(100));
        expect((await call("put", receiver(module, objectPath(module, pushed)), pushed)).status).toBe(201);
        expect((await call("delete", receiver(module, objectPath(module, pushed)))).body.status_code).toBe(1000);
        expect((await call("get", receiver(module, objectPath(module, pushed)))).status).toBe(404);
        expect((await call("delete", receiver(module, objectPath(module, pushed)))).status).toBe(404);
      });
    else
      it("PATCH is merged into the stored object (through the port's update, or get and put without it); PATCH of an unknown one is 404", async () => {
        const pushed = PUSHED[module]("Patch-1", minute(100));
        expect((await call("put", receiver(module, objectPath(module, pushed)), pushed)).status).toBe(201);
        const stamp = minute(130);
        if (module === "locations") {
          const evse = pushed.evses[0];
          const res = await call("patch", receiver(module, `/${pushed.country_code}/${pushed.party_id}/${pushed.id}/${evse.uid}`), { status: "CHARGING", last_updated: stamp });
          expect(res.body.status_code).toBe(1000);
          const stored = (await call("get", receiver(module, objectPath(module, pushed)))).body.data;
          expect(stored).toEqual({ ...pushed, evses: [{ ...evse, status: "CHARGING", last_updated: stamp }], last_updated: stamp });
        } else {
          const change = module === "sessions" ? { kwh: 9.75, status: "COMPLETED" } : { valid: false };
          const res = await call("patch", receiver(module, objectPath(module, pushed)), { ...change, last_updated: stamp });
          expect(res.body.status_code).toBe(1000);
          expect((await call("get", receiver(module, objectPath(module, pushed)))).body.data).toEqual({ ...pushed, ...change, last_updated: stamp });
        }
        const unknown = PUSHED[module]("Patch-Unknown", minute(100));
        const path = module === "locations" ? `/${unknown.country_code}/${unknown.party_id}/${unknown.id}/${unknown.evses[0].uid}` : objectPath(module, unknown);
        expect((await call("patch", receiver(module, path), { last_updated: stamp })).status).toBe(404);
      });

    it("the port keeps objects per owner: the same id under another owner is another object", async () => {
      const port = g.port(`${module}.RECEIVER`) as { get(owner: object, key: unknown, ctx: object): Promise<unknown> };
      const pushed = PUSHED[module]("Owner-1", minute(100));
      expect((await call("put", receiver(module, objectPath(module, pushed)), pushed)).status).toBe(201);
      const key = module === "tokens" ? { uid: pushed.uid, type: pushed.type } : pushed.id;
      expect(await port.get({ country_code: pushed.country_code, party_id: pushed.party_id }, key, g.ctx())).toEqual(pushed);
      expect(await port.get({ country_code: "XX", party_id: "NON" }, key, g.ctx())).toBeUndefined();
    });
  });

  (implemented("cdrs.RECEIVER") ? describe : describe.skip)("cdrs Receiver", () => {
    it("POST stores a CDR (201 with its Location), GET there returns it; the same CDR again is 200; other content under its id is refused", async () => {
      const pushed = cdr(PARTNER_CPO, "Cdr-Rx-1", IN_SCOPE, minute(100));
      const created = await call("post", receiver("cdrs"), pushed);
      expect({ status: created.status, code: created.body.status_code }).toEqual({ status: 201, code: 1000 });
      const at = (created.headers.location as string).replace(/^https?:\/\/[^/]+/, "");
      expect(at).toBe(receiver("cdrs", `/${pushed.country_code}/${pushed.party_id}/${pushed.id}`));
      expect((await call("get", at)).body.data).toEqual(pushed);
      expect((await call("post", receiver("cdrs"), pushed)).status).toBe(200);
      const other = await call("post", receiver("cdrs"), { ...pushed, total_energy: 99 });
      expect(other.body.status_code).toBe(2001);
      expect((await call("get", at)).body.data).toEqual(pushed);
    });

    it("CDR ids are CiStrings: GET in other case finds it, a POST in other case is the same CDR", async () => {
      const pushed = cdr(PARTNER_CPO, "Cdr-Ci-1", IN_SCOPE, minute(100));
      expect((await call("post", receiver("cdrs"), pushed)).status).toBe(201);
      expect((await call("get", receiver("cdrs", `/${pushed.country_code}/${pushed.party_id}/CDR-ci-1`))).body.data).toEqual(pushed);
      expect((await call("post", receiver("cdrs"), { ...pushed, id: "CDR-CI-1", total_energy: 99 })).body.status_code).toBe(2001);
    });

    it("an unknown CDR is 404; the port's insert answers false for an id the owner already has", async () => {
      expect((await call("get", receiver("cdrs", `/${PARTNER_CPO.country_code}/${PARTNER_CPO.party_id}/NO-SUCH-CDR`))).status).toBe(404);
      const port = g.port("cdrs.RECEIVER");
      const stored = cdr(PARTNER_CPO, "Cdr-Port-1", IN_SCOPE, minute(100));
      expect(await port.insert(PARTNER_CPO, stored as never, g.ctx())).toBe(true);
      expect(await port.insert(PARTNER_CPO, { ...stored, total_energy: 1 } as never, g.ctx())).toBe(false);
      expect(await port.get(PARTNER_CPO, "Cdr-Port-1", g.ctx())).toEqual(stored);
    });
  });
});
