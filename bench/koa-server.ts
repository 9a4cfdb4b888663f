import Koa from "koa";
import { readFileSync } from "node:fs";

/**
 * The second baseline: a minimal Koa app answering the bytes and headers the
 * gateway answered, captured once (no router, no middleware): what Koa
 * itself costs. Runs as its own process on the server core.
 * Arguments: port, body file, headers JSON file.
 */
const [port, bodyFile, headersFile] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const headers = JSON.parse(readFileSync(headersFile, "utf8")) as Record<string, string>;
const app = new Koa();
app.use((ctx) => {
  ctx.set(headers);
  ctx.body = body;
});
app.listen(Number(port), "127.0.0.1", () => process.stdout.write("listening on koa\n"));
process.once("SIGTERM", () => process.exit(0));
