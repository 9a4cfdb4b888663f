import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../../config/load-config";
import { removeTempDirs, tempDir } from "../support/gateway-config";
import { REPO_ROOT, freePorts, ocpiRequest, startGatewayProcess } from "../support/gateway-process";

/** The README's two commands stay true: the first serves the repository's config on embedded defaults, the second is what CI runs. */

jest.setTimeout(60_000);
afterAll(() => removeTempDirs());

const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
const gettingStarted = readme.slice(readme.indexOf("## Getting started"), readme.indexOf("\n## ", readme.indexOf("## Getting started") + 1));
const commands = [...gettingStarted.matchAll(/```sh\n([^`]+)```/g)].map((m) => m[1].trim());

it("README has exactly two set-up commands: install and start, and the tests", () => {
  expect(commands).toEqual(["npm install && npm start", "npm test"]);
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));
  expect(pkg.scripts.start).toBe("node bin/ocpi-gateway.js start");
  expect(pkg.scripts.prepare).toContain("tsc");
  expect(fs.readFileSync(path.join(REPO_ROOT, ".ci", "run"), "utf8")).toMatch(/^timeout \d+ npm test$/m);
});

it("`start` serves the repository's gateway.config.yaml on embedded defaults: SQLite, seeded local adapter, no Redis", async () => {
  const [port] = await freePorts(1);
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, GATEWAY_DB: path.join(tempDir("ocpi-readme-"), "gateway.db") };
  delete env.EXAMPLE_EMSP_TOKEN_A;
  delete env.REDIS_URL;
  const file = path.join(REPO_ROOT, "gateway.config.yaml");
  const gateway = await startGatewayProcess({ dir: REPO_ROOT, file, config: loadConfig(file, env) }, { cwd: REPO_ROOT, env });
  try {
    const auth = { token: "change-me-token-a" };
    const versions = await ocpiRequest("GET", gateway.versionsUrl, auth);
    expect(versions.status).toBe(200);
    const details = await ocpiRequest("GET", `${gateway.url}/ocpi/2.3.0`, auth);
    const modules = new Set((details.body.data.endpoints as { identifier: string }[]).map((e) => e.identifier));
    expect([...modules].sort()).toEqual(["cdrs", "chargingprofiles", "commands", "credentials", "locations", "sessions", "tariffs", "tokens"]);
    expect((await ocpiRequest("GET", `${gateway.url}/ocpi/2.3.0/sender/locations`, auth)).status).toBe(401);
    // Printed right after "listening on"; read once requests were answered, so every line has arrived.
    expect(gateway.output()).toContain(`versions URL: http://127.0.0.1:${port}/ocpi/versions`);
    expect(gateway.output()).toMatch(/partner example-emsp: pending; waiting for them to register/);
  } finally {
    expect(await gateway.stop()).toBe(0);
  }
});
