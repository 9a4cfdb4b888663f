import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, tempDir, testGatewayConfig } from "../support/gateway-config";
import {
  REPO_ROOT,
  freePorts,
  ocpiRequest,
  runCli,
  startGatewayProcess,
  writeGatewayConfig,
  type GatewayProcess,
} from "../support/gateway-process";

/** `ocpi-gateway` as the operator runs it: real processes, exit codes, stdout and stderr. */

// Each CLI run is a Node process (~0.5 s of CPU); leave room for a busy machine.
jest.setTimeout(60_000);

const EXAMPLE = path.join(REPO_ROOT, "gateway.config.yaml");

afterAll(() => removeTempDirs());

describe("check-config", () => {
  it("accepts the repository's gateway.config.yaml and prints it with the token masked", async () => {
    const secret = "check-config-secret-token-A-5d1e";
    // Paths in the example (store, seed file) are relative to the working directory: the repository root.
    const result = await runCli(["check-config", "--config", EXAMPLE], undefined, { env: { ...process.env, EXAMPLE_EMSP_TOKEN_A: secret } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("id: example-emsp");
    expect(result.stdout).toContain('token_a: "***"');
    expect(result.stdout).not.toContain(secret);
  });

  it("does not print the default token either", async () => {
    const env = { ...process.env };
    delete env.EXAMPLE_EMSP_TOKEN_A;
    const result = await runCli(["check-config", "--config", EXAMPLE], undefined, { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("change-me-token-a");
  });

  it("rejects a broken config with exit code 1, listing every problem", async () => {
    const file = path.join(tempDir(), "broken.yaml");
    fs.writeFileSync(
      file,
      [
        "server:",
        "  port: 0",
        "  prot: 8080",
        "  public_url: http://127.0.0.1:8080",
        "parties:",
        "  - {country_code: nl, party_id: TOOLONG, role: CPO, business_details: {name: Broken}}",
        "partners:",
        '  - {id: p1, token_a: "has a space", token_encoding: hex}',
        "",
      ].join("\n"),
    );
    const result = await runCli(["check-config"], file);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    for (const path of [
      "server.port:",
      "server.prot:",
      "parties[0].country_code:",
      "parties[0].party_id:",
      "partners[0].token_a:",
      "partners[0].token_encoding:",
    ]) {
      expect(result.stderr).toContain(path);
    }
    expect(result.stderr).toContain("6 problems");
    expect(result.stderr).not.toContain("has a space");
  });

  it("reports a missing file with exit code 1", async () => {
    const result = await runCli(["check-config"], path.join(tempDir(), "missing.yaml"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("file not found");
  });
});

describe("start with a module routed to an unknown adapter", () => {
  it("exits 1 naming modules.locations", async () => {
    const [port] = await freePorts(1);
    const written = writeGatewayConfig({ port, modules: { locations: { adapter: "nope" } } });
    const start = await runCli(["start"], written.file, { cwd: written.dir });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain("modules.locations");
    expect(start.stdout).not.toContain("listening on");
    const check = await runCli(["check-config"], written.file, { cwd: written.dir });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("modules.locations");
  });
});

describe("partners", () => {
  const CONFIGURED_TOKEN = "cli-configured-token-A-8e21c";
  const gateways: GatewayProcess[] = [];
  let gateway: GatewayProcess;
  let peer: Gateway | undefined;

  /** A gateway process with three configured partners; `registrant` is the port a partner without versions_url may register from. */
  const startWithPartners = async (): Promise<{ gateway: GatewayProcess; registrant: number }> => {
    const [port, peerPort, registrant] = await freePorts(3);
    const started = await startGatewayProcess(
      writeGatewayConfig({
        port,
        partners: [
          // without versions_url, a partner registering from a private address needs it in callback_hosts (README "Outbound URL policy")
          { id: "waiting-partner", token_a: CONFIGURED_TOKEN, callback_hosts: [`127.0.0.1:${registrant}`] },
          { id: "outbound-partner", token_a: "cli-outbound-token-A-77", versions_url: `http://127.0.0.1:${peerPort}/ocpi/versions` },
          { id: "no-token-partner" },
        ],
      }),
    );
    gateways.push(started);
    return { gateway: started, registrant };
  };

  /** `partners add new-emsp` on `on`, run once per gateway; the tests that need the partner added share its outcome. */
  const additions = new Map<GatewayProcess, ReturnType<GatewayProcess["cli"]>>();
  const addNewEmsp = (on: GatewayProcess = gateway) => {
    if (!additions.has(on)) additions.set(on, on.cli(["partners", "add", "new-emsp"]));
    return additions.get(on)!;
  };
  const tokenOf = (added: Awaited<ReturnType<typeof addNewEmsp>>): string => {
    const token = /token A:\s+(\S+)/.exec(added.stdout)?.[1];
    expect(token).toMatch(/^[\x21-\x7e]{16,64}$/);
    return token!;
  };

  beforeAll(async () => {
    ({ gateway } = await startWithPartners());
  });

  afterAll(async () => {
    await peer?.close();
    for (const started of gateways) expect(await started.stop()).toBe(0);
  });

  it("add prints a fresh token A and our versions URL", async () => {
    const result = await addNewEmsp();
    expect(result.code).toBe(0);
    tokenOf(result);
    expect(result.stdout).toContain(`versions URL: ${gateway.versionsUrl}`);
  });

  it("add refuses an id that already exists", async () => {
    expect((await addNewEmsp()).code).toBe(0);
    const result = await gateway.cli(["partners", "add", "new-emsp"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("already exists");
  });

  it("the printed token A works on versions of the running gateway at once", async () => {
    const tokenA = tokenOf(await addNewEmsp());
    for (const encoding of ["base64", "raw"] as const) {
      const versions = await ocpiRequest("GET", gateway.versionsUrl, { token: tokenA, encoding });
      expect(versions.status).toBe(200);
      expect(versions.body.data.map((v: { version: string }) => v.version)).toEqual(["2.3.0", "2.2.1", "2.1.1"]);
    }
    const details = await ocpiRequest("GET", `${gateway.url}/ocpi/2.2.1`, { token: tokenA });
    expect(details.status).toBe(200);
  });

  it("the printed token A gets 401 outside versions and credentials", async () => {
    const tokenA = tokenOf(await addNewEmsp());
    for (const path of ["/ocpi/2.3.0/sender/locations", "/ocpi/2.2.1/receiver/tokens", "/ocpi/2.1.1/cdrs"]) {
      const response = await ocpiRequest("GET", `${gateway.url}${path}`, { token: tokenA });
      expect(response.status).toBe(401);
      expect(response.body.status_code).toBe(2000);
    }
  });

  it("list shows the state of every partner, configured or added", async () => {
    const tokenA = tokenOf(await addNewEmsp());
    const result = await gateway.cli(["partners", "list"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    const line = (id: string) => lines.find((l) => l.startsWith(`partner ${id}:`)) ?? "";
    expect(line("waiting-partner")).toMatch(/pending; waiting for them to register/);
    expect(line("outbound-partner")).toMatch(/pending; run `ocpi-gateway partners register outbound-partner`/);
    expect(line("no-token-partner")).toMatch(/no usable token A/);
    expect(line("new-emsp")).toMatch(/pending; waiting for them to register with the token A printed by `partners add new-emsp`/);
    expect(lines).toHaveLength(4);
    expect(result.stdout).not.toContain(CONFIGURED_TOKEN);
    expect(result.stdout).not.toContain(tokenA);
  });

  it("a partner added with the printed token A registers only from a public address; a configured one registers and list shows it", async () => {
    // a gateway of its own: the registration changes what the other tests list
    const { gateway, registrant } = await startWithPartners();
    const tokenA = tokenOf(await addNewEmsp(gateway));
    peer = await Gateway.create(
      testGatewayConfig({
        port: registrant,
        party: { country_code: "DE", party_id: "NEW", role: "EMSP" },
        partners: [
          { id: "as-new-emsp", token_a: tokenA, versions_url: gateway.versionsUrl },
          { id: "as-waiting-partner", token_a: CONFIGURED_TOKEN, versions_url: gateway.versionsUrl },
        ],
      }),
      { logger: pino({ level: "silent" }) },
    );
    await peer.listen();
    // new-emsp has no callback_hosts (it is not in the YAML): its loopback versions URL is refused and nothing is stored
    await expect(peer.credentials.register("as-new-emsp")).rejects.toThrow("url host 127.0.0.1 is not a public address (see partners[].callback_hosts)");
    expect((await ocpiRequest("GET", gateway.versionsUrl, { token: tokenA })).status).toBe(200);

    const record = await peer.credentials.register("as-waiting-partner");
    expect(record.version).toBe("2.3.0");
    const result = await gateway.cli(["partners", "list"]);
    expect(result.stdout).toMatch(/partner waiting-partner: registered, version 2\.3\.0, \d+ endpoints/);
    expect(result.stdout).toMatch(/partner new-emsp: pending/);
    // token A is used up
    expect((await ocpiRequest("GET", gateway.versionsUrl, { token: CONFIGURED_TOKEN })).status).toBe(401);
  });

  it("an unknown action or a missing id exits 1 with a message", async () => {
    const unknown = await gateway.cli(["partners", "frobnicate", "x"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Unknown partners action");
    const missing = await gateway.cli(["partners", "add"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("partner id is required");
    const unknownPartner = await gateway.cli(["partners", "register", "nobody"]);
    expect(unknownPartner.code).toBe(1);
    expect(unknownPartner.stderr).toContain("Unknown partner nobody");
  });
});
