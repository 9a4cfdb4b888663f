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

/**
 * IPv6 addresses that carry an IPv4 address (README "Outbound URL policy",
 * the embedded forms): one is refused when the address it carries is, and
 * taken when that address is public. Each row: the form, a refused
 * embedding, and a public one.
 */
describe("isPublicAddress: IPv4 addresses embedded in IPv6", () => {
  it.each([
    // IPv4-mapped ::ffff:0:0/96 (RFC 4291), in every spelling
    ["IPv4-mapped, long form", "0:0:0:0:0:ffff:7f00:1", "0:0:0:0:0:ffff:808:808"],
    ["IPv4-mapped, dotted", "::ffff:192.168.1.1", "::ffff:8.8.8.8"],
    // IPv4-compatible ::/96 (RFC 4291, deprecated)
    ["IPv4-compatible, dotted", "::127.0.0.1", "::8.8.8.8"],
    ["IPv4-compatible, hex (as URL parsing writes it)", "::7f00:1", "::808:808"],
    ["IPv4-compatible, private", "::a00:1", "::808:404"],
    ["IPv4-compatible, reserved 240/4", "::f000:1", "::808:404"],
    // IPv4-translated ::ffff:0:0:0/96 (RFC 2765)
    ["IPv4-translated", "::ffff:0:7f00:1", "::ffff:0:808:808"],
    // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): the last 32 bits
    ["NAT64 well-known prefix, loopback", "64:ff9b::7f00:1", "64:ff9b::808:808"],
    ["NAT64 well-known prefix, dotted link-local (cloud metadata)", "64:ff9b::169.254.169.254", "64:ff9b::8.8.8.8"],
    ["NAT64 well-known prefix, unspecified", "64:ff9b::", "64:ff9b::808:808"],
    ["NAT64 well-known prefix, multicast", "64:ff9b::e000:1", "64:ff9b::808:808"],
    // NAT64 local-use 64:ff9b:1::/48 (RFC 8215): the last 32 bits
    ["NAT64 local-use prefix, loopback", "64:ff9b:1::7f00:1", "64:ff9b:1::808:808"],
    ["NAT64 local-use prefix, private", "64:ff9b:1:abcd::c0a8:101", "64:ff9b:1:abcd::808:808"],
    // 6to4 2002::/16 (RFC 3056): bits 16-47
    ["6to4, loopback", "2002:7f00:1::", "2002:808:808::"],
    ["6to4, private", "2002:a00:1:1::1", "2002:808:808:1::1"],
    ["6to4, CGNAT", "2002:6440:1::", "2002:808:808::"],
    ["6to4, broadcast", "2002:ffff:ffff::", "2002:808:808::"],
    // Teredo 2001::/32 (RFC 4380): the server in bits 32-63, the client in the last 32 bits XOR 0xffffffff
    ["Teredo, loopback client", "2001:0:4136:e378:8000:63bf:80ff:fffe", "2001:0:4136:e378:8000:63bf:f7f7:fbfb"],
    ["Teredo, private client", "2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001:0:4136:e378:8000:63bf:f7f7:fbfb"],
    ["Teredo, private server", "2001:0:a00:1:8000:63bf:f7f7:fbfb", "2001:0:808:808:8000:63bf:f7f7:fbfb"],
    // ISATAP interface identifiers ::0:5efe:a.b.c.d and ::200:5efe:a.b.c.d (RFC 5214), under any prefix
    ["ISATAP", "2a00:1450:4001:1::5efe:7f00:1", "2a00:1450:4001:1::5efe:808:808"],
    ["ISATAP, universal", "2a00:1450:4001:1:200:5efe:a00:1", "2a00:1450:4001:1:200:5efe:808:808"],
  ])("%s: %s is not public, %s is", (_form, refused, allowed) => {
    expect(isPublicAddress(refused)).toBe(false);
    expect(isPublicAddress(`[${refused}]`)).toBe(false);
    expect(isPublicAddress(allowed)).toBe(true);
  });

  it("an address with a zone id is scoped to a link, never public", () => {
    for (const address of ["fe80::1%eth0", "::ffff:127.0.0.1%lo", "2a00:1450:4001:81c::200e%eth0"]) expect(isPublicAddress(address)).toBe(false);
    expect(isPublicAddress("2a00:1450:4001:81c::200e")).toBe(true);
  });
});

describe("outboundProblem", () => {
  const open = outboundPolicy({ callback_hosts: [] }, "http://0x7f.1:8080/versions");

  it("sees the decimal, hex and short IPv4 forms WHATWG URL normalises", () => {
    for (const url of ["http://2130706433:8080/x", "http://0x7f000001:8080/x", "http://127.1:8080/x"])
      expect(outboundProblem(url, open)).toBe("host 127.0.0.1 is not a public address (see partners[].callback_hosts)");
  });

  it.each([
    ["http://[::127.0.0.1]:8080/v", "[::7f00:1]"],
    ["http://[::7f00:1]:8080/v", "[::7f00:1]"],
    ["http://[0:0:0:0:0:ffff:7f00:1]:8080/v", "[::ffff:7f00:1]"],
    ["http://[::ffff:127.0.0.1]:8080/v", "[::ffff:7f00:1]"],
    ["http://[64:ff9b::127.0.0.1]:8080/v", "[64:ff9b::7f00:1]"],
    ["http://[64:ff9b:1::10.0.0.1]:8080/v", "[64:ff9b:1::a00:1]"],
    ["http://[2002:7f00:1::]:8080/v", "[2002:7f00:1::]"],
    ["http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:8080/v", "[2001:0:4136:e378:8000:63bf:80ff:fffe]"],
  ])("checks the embedded IPv4 address of %s as URL parsing writes the host (%s)", (url, host) => {
    // a partner without versions_url registering from this URL: its origin is allowed, its address is not
    expect(outboundProblem(url, outboundPolicy({ callback_hosts: [] }, url))).toBe(`host ${host} is not a public address (see partners[].callback_hosts)`);
  });

  it.each(["http://[64:ff9b::8.8.8.8]:8080/v", "http://[2002:808:808::]:8080/v", "http://[2001:0:4136:e378:8000:63bf:f7f7:fbfb]/v", "http://[::ffff:8.8.8.8]/v"])(
    "takes %s, whose embedded IPv4 address is public",
    (url) => expect(outboundProblem(url, outboundPolicy({ callback_hosts: [] }, url))).toBeUndefined(),
  );

  it("refuses a zone id: URL parsing does not take one", () => {
    const url = "http://[fe80::1%25eth0]:8080/v";
    expect(outboundProblem(url, outboundPolicy({ callback_hosts: [] }, url))).toBe("must be an absolute http(s) URL");
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
