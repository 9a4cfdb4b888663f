import "reflect-metadata";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { ADMIN_OPERATIONS, mountedAdminRoutes, openApiPath } from "../../core/admin/openapi";

/**
 * Issue #14: `/admin/v1/openapi.json` is an OpenAPI 3 document of the admin
 * API that lists every admin route the gateway has mounted, each described,
 * and no other; with every module served, and with a few.
 */

const ADMIN = "openapi-admin-token-0123456789";
const ALL_MODULES = ["locations", "sessions", "cdrs", "tariffs", "tokens", "commands", "chargingprofiles", "payments", "bookings"];

const servedModules = (wanted: string[]) => Object.fromEntries(wanted.map((m) => [m, { adapter: "local" }]));

describe.each([
  ["every module", ALL_MODULES],
  ["locations only", ["locations"]],
])("OpenAPI document of the admin API (%s)", (_name, modules) => {
  let gateway: Gateway;
  let url: string;

  beforeAll(async () => {
    const [port] = await freePorts(1);
    url = `http://127.0.0.1:${port}`;
    const create = (wanted: string[]) => Gateway.create(testGatewayConfig({ port, modules: servedModules(wanted), server: { admin_token: ADMIN } }));
    // payments is being built: where it is not served yet, every other module
    gateway = await create(modules).catch(() => create(modules.filter((m) => m !== "payments")));
    await gateway.listen();
  });

  afterAll(async () => {
    await gateway?.close();
    removeTempDirs();
  });

  it("lists exactly the mounted admin routes (and itself), each described", async () => {
    const answer = await ocpiRequest("GET", `${url}/admin/v1/openapi.json`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    expect(answer.status).toBe(200);
    const doc = answer.body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.servers).toEqual([{ url: "/admin/v1" }]);
    const documented = Object.entries(doc.paths as Record<string, Record<string, { summary: string }>>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const mounted = mountedAdminRoutes(gateway.app.middleware).map((r) => `${r.method} ${openApiPath(r.path)}`);
    expect(mounted.length).toBeGreaterThan(3);
    expect(documented).toEqual([...mounted, "GET /openapi.json"].sort());
    for (const operation of documented) expect(ADMIN_OPERATIONS[operation]).toBeDefined();
    // each path parameter is declared
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>))
      for (const op of Object.values(operations))
        for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) expect(op.parameters).toContainEqual(expect.objectContaining({ name, in: "path" }));
  });

  it("every documented route answers as mounted: 401 without the token, never 404", async () => {
    const doc = (await ocpiRequest("GET", `${url}/admin/v1/openapi.json`, { headers: { Authorization: `Bearer ${ADMIN}` } })).body;
    for (const [path, operations] of Object.entries(doc.paths as Record<string, object>))
      for (const method of Object.keys(operations)) {
        const concrete = `${url}/admin/v1${path.replace(/\{[^}]+\}/g, "x")}`;
        expect({ route: `${method} ${path}`, status: (await ocpiRequest(method.toUpperCase(), concrete)).status }).toEqual({ route: `${method} ${path}`, status: 401 });
      }
  });
});
