import { isPublicAddress, outboundPolicy, outboundProblem } from "../../core/partners/outbound-policy";

/**
 * The address classes of README "Outbound URL policy", checked without
 * connecting anywhere (test/e2e/outbound-policy.test.ts calls real
 * listeners, on loopback only).
 */
describe("isPublicAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "IPv6 loopback"],
    ["[::1]", "IPv6 loopback in URL brackets"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["fe80::1", "IPv6 link-local"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.254", "CGNAT"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["0.0.0.0", "unspecified"],
    ["::", "IPv6 unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "IPv6 multicast"],
    ["255.255.255.255", "broadcast"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, hex form"],
    ["::ffff:a00:1", "IPv4-mapped private"],
    ["localhost", "not an address at all"],
  ])("%s is not public (%s)", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["8.8.8.8", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2001:4860:4860::8888", "::ffff:808:808"])("%s is public", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe("outboundProblem", () => {
  const open = outboundPolicy({ callback_hosts: [] }, "http://0x7f.1:8080/versions");

  it("sees the decimal, hex and short IPv4 forms WHATWG URL normalises", () => {
    for (const url of ["http://2130706433:8080/x", "http://0x7f000001:8080/x", "http://127.1:8080/x"])
      expect(outboundProblem(url, open)).toBe("host 127.0.0.1 is not a public address (see partners[].callback_hosts)");
  });

  it("refuses userinfo and other schemes before anything else", () => {
    expect(outboundProblem("http://user:pw@127.0.0.1:8080/x", open)).toBe("must not carry a user name or password");
    expect(outboundProblem("file:///etc/passwd", open)).toBe("must use http or https");
    expect(outboundProblem("not a url", open)).toBe("must be an absolute http(s) URL");
  });

  it("takes a configured versions_url's origin over the registered one", () => {
    const configured = outboundPolicy({ versions_url: "https://ocpi.partner.example/versions", callback_hosts: ["cb.partner.example:8443"] }, "https://elsewhere.example/v");
    expect([...configured.origins].sort()).toEqual([
      "http://cb.partner.example:8443",
      "https://cb.partner.example:8443",
      "https://ocpi.partner.example",
    ]);
    expect(outboundProblem("https://elsewhere.example/v", configured)).toBe("host elsewhere.example is not allowed for this partner (see partners[].callback_hosts)");
    expect(outboundProblem("http://ocpi.partner.example/v", configured)).toBe(
      "origin http://ocpi.partner.example is not allowed for this partner (see partners[].callback_hosts)",
    );
  });
});
