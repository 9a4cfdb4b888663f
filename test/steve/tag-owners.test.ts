import path from "node:path";
import { setJson } from "../../adapters/steve/contracts";
import { storeKeyValue } from "../../adapters/steve/store-kv";
import { storeTagOwners } from "../../adapters/steve/tag-owners";
import { openStore } from "../../core/store/open-store";
import type { Store } from "../../core/contract/store";
import { removeTempDirs, tempDir } from "../support/gateway-config";

/**
 * The idTag owner index the steve Sessions and CDRs lists filter a
 * partner's scope by (adapters/steve/tag-owners.ts), on the gateway's
 * SQLite store: tags added per owner, a scope's idTags (its own parties, a
 * hub's relay), and tag records a gateway kept before the index existed
 * indexed once at start.
 */

const NL = { country_code: "NL", party_id: "EMS" };
const BE = { country_code: "BE", party_id: "XYZ" };
const own = (...parties: (typeof NL)[]) => ({ parties, relay: false, excluded: [] });

let store: Store;
beforeEach(async () => void (store = await openStore({ type: "sqlite", path: path.join(tempDir(), "gateway.db") })));
afterEach(async () => store.close());
afterAll(() => removeTempDirs());

test("a scope's idTags are those its parties own, or for a hub those of every party it may relay for", async () => {
  const owners = storeTagOwners(store);
  await owners.add(NL, "NL-1");
  await owners.add(NL, "NL-2");
  await owners.add(NL, "NL-1");
  await owners.add(BE, "BE-1");
  expect((await owners.idTagsIn(own(NL))).sort()).toEqual(["NL-1", "NL-2"]);
  expect((await owners.idTagsIn(own(NL, BE))).sort()).toEqual(["BE-1", "NL-1", "NL-2"]);
  expect(await owners.idTagsIn(own({ country_code: "DE", party_id: "OTH" }))).toEqual([]);
  expect(await owners.idTagsIn({ parties: [], relay: true, excluded: [NL] })).toEqual(["BE-1"]);
});

test("tag records kept before the index existed are indexed once, other kept values ignored", async () => {
  const kv = storeKeyValue(store);
  const record = (idTag: string, owner: typeof NL) => ({ idTag, owner, uid: idTag, type: "RFID", contract_id: `C-${idTag}`, valid: true, whitelist: "ALWAYS" });
  await setJson(kv, "steve:tag:OLD-NL", record("OLD-NL", NL));
  await setJson(kv, "steve:tag:OLD-BE", record("OLD-BE", BE));
  await setJson(kv, "steve:poll:context:7", { token: { ...NL, uid: "X", type: "RFID", contract_id: "C" } });
  await kv.set("steve:tag-id:NLEMS:RFID:OLD-NL", "OLD-NL");
  const owners = storeTagOwners(store);
  await owners.indexKeptTags();
  expect(await owners.idTagsIn(own(NL))).toEqual(["OLD-NL"]);
  expect(await owners.idTagsIn(own(BE))).toEqual(["OLD-BE"]);

  // Once: what is kept later comes through add(), not another scan.
  await setJson(kv, "steve:tag:LATER", record("LATER", NL));
  await owners.indexKeptTags();
  expect(await owners.idTagsIn(own(NL))).toEqual(["OLD-NL"]);
});
