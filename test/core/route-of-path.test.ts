import { routeOfPath } from "../../core/http/request-scope";

/**
 * routeOfPath (core/http/request-scope.ts): the module and interface a path
 * names, for access lines and metric labels; only served modules are named,
 * anything else is "unknown", "other" or "admin"; empty segments (doubled
 * slashes) count for nothing.
 */
const served = new Set(["locations", "tokens", "credentials"]);

describe("routeOfPath", () => {
  it.each([
    ["/ocpi/2.3.0/receiver/tokens/DE/PTN/TOK1", { module: "tokens", interface: "RECEIVER" }],
    ["/ocpi/2.3.0/sender/locations", { module: "locations", interface: "SENDER" }],
    ["//ocpi//2.2.1/sender//locations/", { module: "locations", interface: "SENDER" }],
    ["/ocpi/2.1.1/locations/NL/GWY/LOC1", { module: "locations", interface: undefined }],
    ["/ocpi/2.2.1/credentials", { module: "credentials", interface: undefined }],
    ["/ocpi/2.3.0/receiver/sessions/DE/PTN/S1", { module: "unknown", interface: "RECEIVER" }],
    ["/ocpi/2.3.0/receiver", { module: "unknown", interface: "RECEIVER" }],
    ["/ocpi/9.9.9/sender/locations", { module: "unknown" }],
    ["/ocpi/versions", { module: "versions" }],
    ["/ocpi/2.3.0", { module: "versions" }],
    ["/ocpi/2.3.0/", { module: "versions" }],
    ["/ocpi", { module: "unknown" }],
    ["/admin/v1/repairs", { module: "admin" }],
    ["/health", { module: "other" }],
    ["/", { module: "other" }],
    ["", { module: "other" }],
  ])("%s", (path, labels) => {
    expect(routeOfPath(path, served)).toEqual(labels);
  });
});
