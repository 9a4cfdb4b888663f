import { SCOPE_IDLE_MS, currentRequest, requestScope, servedInScope } from "../../core/http/request-scope";

/**
 * servedInScope (core/http/request-scope.ts): what a request awaits sees its
 * scope; requestScope lets go of node's async hooks once no request has been
 * served in it for SCOPE_IDLE_MS, never while one is, and takes them again
 * for the next request.
 */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// node 20's AsyncLocalStorage: `enabled` while it holds the async hooks on
const scopeOn = () => (requestScope as unknown as { enabled: boolean }).enabled;

describe("servedInScope", () => {
  beforeEach(async () => {
    // whatever an earlier test served has gone idle
    await pause(SCOPE_IDLE_MS + 100);
  });

  it("keeps a request's scope across its awaits while another request's idle time passes, and lets go once none is served", async () => {
    const slow = servedInScope({ requestId: "slow" }, async () => {
      await pause(SCOPE_IDLE_MS + 300);
      return currentRequest()?.requestId;
    });
    const quick = await servedInScope({ requestId: "quick" }, async () => {
      await pause(1);
      return currentRequest()?.requestId;
    });
    expect(quick).toBe("quick");
    await pause(SCOPE_IDLE_MS + 100);
    // the slow request is still being served: requestScope stays on
    expect(scopeOn()).toBe(true);
    expect(await slow).toBe("slow");
    expect(scopeOn()).toBe(true);
    await pause(SCOPE_IDLE_MS + 100);
    expect(scopeOn()).toBe(false);
    expect(currentRequest()).toBeUndefined();
  });

  it("gives the next request its scope again after letting go", async () => {
    await servedInScope({ requestId: "first" }, async () => undefined);
    await pause(SCOPE_IDLE_MS + 100);
    expect(scopeOn()).toBe(false);
    const seen = await servedInScope({ requestId: "next" }, async () => {
      await pause(5);
      await Promise.resolve();
      return currentRequest()?.requestId;
    });
    expect(seen).toBe("next");
  });

  it("settles as the request does, a rejection included, and counts a request that throws at once as answered", async () => {
    await expect(servedInScope({ requestId: "fails" }, async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(() =>
      servedInScope({ requestId: "throws" }, () => {
        throw new Error("at once");
      }),
    ).toThrow("at once");
    await pause(SCOPE_IDLE_MS + 100);
    expect(scopeOn()).toBe(false);
  });
});
