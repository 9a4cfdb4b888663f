import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";

/**
 * `server.token_grace_seconds`: after a credentials PUT the rotated-out
 * token keeps working for the grace period, then is refused; with the
 * default 0 it is refused at once (test/e2e/registration.test.ts).
 */

const TOKEN_A = "grace-test-token-a";
const GRACE_SECONDS = 1;
let server: Gateway;
let client: Gateway;
let serverPort: number;

beforeAll(async () => {
  const [sp, cp] = await freePorts(2);
  serverPort = sp;
  const silent = pino({ level: "silent" });
  server = await Gateway.create(
    testGatewayConfig({
      port: sp,
      party: { country_code: "NL", party_id: "SRV", role: "CPO" },
      server: { token_grace_seconds: GRACE_SECONDS },
      partners: [{ id: "client", token_a: TOKEN_A, versions_url: versionsUrlOf(cp) }],
    }),
    { logger: silent },
  );
  client = await Gateway.create(
    testGatewayConfig({
      port: cp,
      party: { country_code: "DE", party_id: "CLI", role: "EMSP" },
      partners: [{ id: "server", token_a: TOKEN_A, versions_url: versionsUrlOf(sp) }],
    }),
    { logger: silent },
  );
  await server.listen();
  await client.listen();
  await client.credentials.register("server");
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  removeTempDirs();
});

const versionsWith = async (token: string) => (await ocpiRequest("GET", versionsUrlOf(serverPort), { token })).status;

it("the token replaced by a PUT works during the grace period, then gets 401", async () => {
  const before = (await client.registry.get("server"))!.tokenToPartner!;
  expect(await versionsWith(before)).toBe(200);
  await client.credentials.update("server");
  const after = (await client.registry.get("server"))!.tokenToPartner!;
  expect(after).not.toBe(before);
  expect(await versionsWith(after)).toBe(200);
  expect(await versionsWith(before)).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000 + 200));
  expect(await versionsWith(before)).toBe(401);
  expect(await versionsWith(after)).toBe(200);
});
