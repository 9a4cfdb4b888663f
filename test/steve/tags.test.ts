import type { RowDataPacket } from "mysql2/promise";
import { memoryKeyValue } from "../../adapters/steve/contracts";
import { SteveRest } from "../../adapters/steve/rest";
import { aliasOf, SteveTags } from "../../adapters/steve/tags";
import type { Token } from "../../plugins/tokens/model";
import { startMariaDb, type MariaDb } from "../support/mariadb";
import { TAGS } from "../support/steve-seed";
import { captureLog, REST_PASSWORD, REST_USER, steveEnv, type SteveEnv } from "./steve-env";

const NL = { country_code: "NL", party_id: "EMS" };
const BE = { country_code: "BE", party_id: "XYZ" };
const token = (owner: typeof NL, uid: string, extra: Partial<Token> = {}): Token => ({
  ...owner,
  uid,
  type: "RFID",
  contract_id: `${owner.country_code}-${owner.party_id}-${uid.slice(0, 6)}`,
  issuer: owner.party_id,
  valid: true,
  whitelist: "ALWAYS",
  last_updated: "2026-09-01T00:00:00Z",
  ...extra,
});

let maria: MariaDb;
let env: SteveEnv;

beforeAll(async () => {
  maria = await startMariaDb();
  env = await steveEnv(maria, "tags", "3.12");
}, 60_000);

afterAll(async () => {
  await env?.close();
  await maria?.stop();
});

const tags = (kv = memoryKeyValue()) => ({
  kv,
  tags: new SteveTags({
    rest: new SteveRest({ base_url: env.fake.baseUrl, user: REST_USER, password: REST_PASSWORD, timeout_ms: 5_000 }),
    kv,
    log: captureLog(),
    policy: "deny",
  }),
});
const row = async (idTag: string) => ((await env.writer.query<RowDataPacket[]>("SELECT * FROM ocpp_tag WHERE id_tag = ?", [idTag]))[0] as RowDataPacket[])[0];

test("a pushed token becomes an ocpp_tag under its uid, owned by the pushing party", async () => {
  const { tags: t } = tags();
  const record = await t.push(NL, token(NL, "NL-EMS-0001"));
  expect(record).toMatchObject({ idTag: "NL-EMS-0001", owner: NL, uid: "NL-EMS-0001" });
  expect(await row("NL-EMS-0001")).toMatchObject({ max_active_transaction_count: 1, note: "OCPI token of NLEMS (RFID)" });
  expect(await t.ownerOf("NL-EMS-0001")).toMatchObject({ owner: NL, type: "RFID", contract_id: "NL-EMS-NL-EMS" });
  // SteVe's own local cards are nobody's.
  expect(await t.ownerOf(TAGS.alice)).toBeUndefined();
});

test("uids longer than 20 characters or outside SteVe's charset go through an alias", async () => {
  const { tags: t } = tags();
  const long = "04AABBCCDDEEFF00112233445566"; // 28 characters
  const spaced = "EMS 42/X";
  const a = await t.push(NL, token(NL, long));
  const b = await t.push(NL, token(NL, spaced));
  expect(a.idTag).toBe(aliasOf(NL, long, "RFID"));
  expect(a.idTag).toMatch(/^#[0-9a-f]{19}$/);
  expect(b.idTag).toMatch(/^#[0-9a-f]{19}$/);
  expect(await row(a.idTag)).toBeDefined();
  expect(await t.ownerOf(a.idTag)).toMatchObject({ owner: NL, uid: long });
  expect(await t.ownerOf(b.idTag)).toMatchObject({ owner: NL, uid: spaced });
  expect(await t.get(NL, long, "RFID")).toMatchObject({ idTag: a.idTag });
});

test("the same uid from two eMSPs: the second gets an alias, each keeps its owner", async () => {
  const { tags: t } = tags();
  const first = await t.push(NL, token(NL, "SHARED-UID"));
  const second = await t.push(BE, token(BE, "SHARED-UID"));
  expect(first.idTag).toBe("SHARED-UID");
  expect(second.idTag).toBe(aliasOf(BE, "SHARED-UID", "RFID"));
  expect((await t.ownerOf(first.idTag))?.owner).toEqual(NL);
  expect((await t.ownerOf(second.idTag))?.owner).toEqual(BE);
});

test("valid=false blocks the tag, valid again unblocks it; whitelist NEVER is not provisioned", async () => {
  const { tags: t } = tags();
  await t.push(NL, token(NL, "FLIP-1"));
  await t.push(NL, token(NL, "FLIP-1", { valid: false }));
  expect(await row("FLIP-1")).toMatchObject({ max_active_transaction_count: 0 });
  await t.push(NL, token(NL, "FLIP-1", { valid: true }));
  expect(await row("FLIP-1")).toMatchObject({ max_active_transaction_count: 1 });

  await t.push(NL, token(NL, "NEVER-1", { whitelist: "NEVER" }));
  expect(await row("NEVER-1")).toBeUndefined();
  expect(await t.ownerOf("NEVER-1")).toMatchObject({ whitelist: "NEVER" });
  // A START_SESSION provisions it just in time.
  expect(await t.forCommand(token(NL, "NEVER-1", { whitelist: "NEVER" }))).toEqual({ allowed: true, idTag: "NEVER-1" });
  expect(await row("NEVER-1")).toMatchObject({ max_active_transaction_count: 1 });
});

test("the alias table survives a restart: a new instance on the same store finds the same idTags", async () => {
  const kv = memoryKeyValue();
  const long = "FFEEDDCCBBAA99887766554433221100";
  const before = await tags(kv).tags.push(NL, token(NL, long));
  const after = tags(kv).tags;
  expect(await after.idTagFor(NL, long, "RFID")).toBe(before.idTag);
  expect(await after.ownerOf(before.idTag)).toMatchObject({ owner: NL, uid: long });
});
