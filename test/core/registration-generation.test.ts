/**
 * The registration generation (core/partners/registration-generation.ts) on SQLite: a read sees every
 * renewal committed before it, by this connection or another on the same file.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteStore } from "../../core/store/sqlite-store";
import { RegistrationGeneration } from "../../core/partners/registration-generation";

describe("RegistrationGeneration on SQLite", () => {
  let dir: string;
  let store: SqliteStore;
  let other: SqliteStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "registration-generation-"));
    const file = path.join(dir, "state.db");
    store = SqliteStore.open(file);
    other = SqliteStore.open(file);
  });

  afterEach(async () => {
    await Promise.all([store.close(), other.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("sees a renewal committed before the read, by another connection on the file or its own", async () => {
    const generation = new RegistrationGeneration(store);
    const elsewhere = new RegistrationGeneration(other);
    await elsewhere.renew();
    const first = await generation.read();
    expect(await generation.read()).toBe(first);
    await elsewhere.renew();
    const second = await generation.read();
    expect(second).not.toBe(first);
    await generation.renew();
    expect(await generation.read()).not.toBe(second);
    expect(await elsewhere.read()).toBe(await generation.read());
  });
});
