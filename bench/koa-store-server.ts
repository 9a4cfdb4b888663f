import Koa from "koa";
import type { StoreConfig } from "../config/types";
import { openStore } from "../core/store/open-store";

/**
 * The receivers' baseline: a minimal Koa app that reads the JSON body, parses
 * it and stores it in the same store the gateway uses (a PUT replaces the
 * object, a PATCH merges the fragment into it in one atomic update), then
 * answers a fixed OCPI envelope: no router, no authentication, no
 * validation or translation. Runs as its own process on the server core.
 * Arguments: port, store config JSON.
 */
const [port, storeJson] = process.argv.slice(2);
const answer = JSON.stringify({ status_code: 1000, status_message: "Success", timestamp: "2026-01-01T00:00:00Z" });

const main = async () => {
  const store = await openStore(JSON.parse(storeJson) as StoreConfig);
  const app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    const key = ctx.path;
    const sortKey = Date.parse(String(body.last_updated));
    if (ctx.method === "PUT") await store.put("baseline", key, body, sortKey);
    else if (ctx.method === "PATCH")
      await store.update<Record<string, unknown>>("baseline", key, (current) => ({ value: { ...current, ...body }, sortKey }));
    ctx.type = "application/json";
    ctx.body = answer;
  });
  app.listen(Number(port), "127.0.0.1", () => process.stdout.write("listening on koa store\n"));
};

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
process.once("SIGTERM", () => process.exit(0));
