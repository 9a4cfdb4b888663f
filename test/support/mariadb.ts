import { execFile, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createConnection, type Connection } from "mysql2/promise";
import { hasExited, spawnServer, stopChild } from "./child-process";
import { freePort } from "./redis-server";

/**
 * A private MariaDB for one test file: `mariadb-install-db` into a temp
 * datadir, then `mariadbd` on a free loopback port with its socket in the
 * same dir (Debian's mariadb-server; .ci/run installs it). Root is reached
 * only through that socket; tests get per-database TCP users.
 */

export interface DbSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export interface TestDatabase {
  /** SELECT only, like the adapter's account on a real SteVe */
  reader: DbSettings;
  /** all privileges on the database: the test's seeding and the fake SteVe's "station" */
  writer: DbSettings;
}

export interface MariaDb {
  port: number;
  createDatabase(name: string): Promise<TestDatabase>;
  /** an outage: mariadbd stops, its data stays; `resume()` brings it back on the same port */
  halt(): Promise<void>;
  resume(): Promise<void>;
  /** the SQL of every statement waiting for a table lock now, any user's (root sees all): where a reader stands behind a test's LOCK TABLES */
  lockWaits(): Promise<string[]>;
  /** SIGTERM (SIGKILL after a while), then remove the datadir */
  stop(): Promise<void>;
}

const run = promisify(execFile);
const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;
const MARIADBD = "/usr/sbin/mariadbd";

const asRoot = os.userInfo().uid === 0 ? ["--user=root"] : [];

/**
 * The server's temporary files (the bootstrap's temporary tables among them) in a folder of its own: in the shared
 * /tmp a bootstrap once failed when its `#sql-temptable-*` file was gone before it removed it ("Unknown table
 * 'mysql.tmp_user_sys'"), during a full test run beside other work.
 */
const tmpDirOf = (dir: string): string => path.join(dir, "tmp");

async function installDb(dir: string): Promise<void> {
  const dataDir = path.join(dir, "data");
  try {
    await mkdir(tmpDirOf(dir), { recursive: true });
    await run(
      "mariadb-install-db",
      ["--no-defaults", `--datadir=${dataDir}`, `--tmpdir=${tmpDirOf(dir)}`, "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve", ...asRoot],
      { timeout: READY_TIMEOUT_MS },
    );
  } catch (err) {
    throw new Error(`mariadb-install-db failed (apt-get install mariadb-server): ${(err as Error).message}`);
  }
}

function spawnMariadbd(dir: string, port: number): ChildProcess {
  const args = [
    "--no-defaults",
    ...asRoot,
    `--datadir=${path.join(dir, "data")}`,
    `--tmpdir=${tmpDirOf(dir)}`,
    `--socket=${path.join(dir, "mysqld.sock")}`,
    `--pid-file=${path.join(dir, "mysqld.pid")}`,
    `--log-error=${path.join(dir, "error.log")}`,
    `--port=${port}`,
    "--bind-address=127.0.0.1",
    "--skip-name-resolve",
    "--skip-log-bin",
    // Durability buys nothing for throw-away data and costs fsyncs on every seed insert.
    "--innodb-buffer-pool-size=32M",
    "--innodb-flush-log-at-trx-commit=0",
    "--innodb-doublewrite=0",
    "--skip-innodb-adaptive-hash-index",
    "--default-time-zone=+00:00",
    "--character-set-server=utf8mb4",
  ];
  return spawnServer(MARIADBD, args, { stdio: "ignore" });
}

async function connectRoot(socketPath: string, child: ChildProcess, errorLog: string): Promise<Connection> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (hasExited(child)) {
      const log = await readFile(errorLog, "utf8").catch(() => "");
      throw new Error(`mariadbd exited (${child.exitCode ?? child.signalCode}) before it was ready\n${log}`);
    }
    try {
      return await createConnection({ socketPath, user: "root", multipleStatements: true });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`mariadbd not ready within ${READY_TIMEOUT_MS} ms: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function startMariaDb(): Promise<MariaDb> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mariadb-"));
  let child: ChildProcess | undefined;
  let root: Connection | undefined;
  try {
    await installDb(dir);
    const port = await freePort();
    child = spawnMariadbd(dir, port);
    root = await connectRoot(path.join(dir, "mysqld.sock"), child, path.join(dir, "error.log"));
  } catch (err) {
    if (child) await stopChild(child, "SIGTERM", STOP_TIMEOUT_MS);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const port = (await root.query<any[]>("SELECT @@port AS port"))[0][0].port as number;
  let server = child;
  let admin = root;

  return {
    port,
    async createDatabase(name) {
      if (!/^[a-z0-9_]{1,32}$/.test(name)) throw new Error(`database name ${name} is not a plain identifier`);
      const reader = { user: `${name}_ro`.slice(0, 32), password: `ro-${name}` };
      const writer = { user: `${name}_rw`.slice(0, 32), password: `rw-${name}` };
      await admin.query(
        `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4;
         CREATE USER '${reader.user}'@'127.0.0.1' IDENTIFIED BY '${reader.password}';
         GRANT SELECT, SHOW VIEW ON \`${name}\`.* TO '${reader.user}'@'127.0.0.1';
         CREATE USER '${writer.user}'@'127.0.0.1' IDENTIFIED BY '${writer.password}';
         GRANT ALL PRIVILEGES ON \`${name}\`.* TO '${writer.user}'@'127.0.0.1';`,
      );
      const base = { host: "127.0.0.1", port, database: name };
      return { reader: { ...base, ...reader }, writer: { ...base, ...writer } };
    },
    async halt() {
      await admin.end().catch(() => undefined);
      await stopChild(server, "SIGTERM", STOP_TIMEOUT_MS);
    },
    async resume() {
      server = spawnMariadbd(dir, port);
      admin = await connectRoot(path.join(dir, "mysqld.sock"), server, path.join(dir, "error.log"));
    },
    async lockWaits() {
      const [rows] = await admin.query<any[]>("SELECT INFO AS info FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table%lock'");
      return rows.map((r) => String(r.info));
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await stopChild(server, "SIGTERM", STOP_TIMEOUT_MS);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
