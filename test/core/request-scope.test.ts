import { SCOPE_IDLE_MS, currentRequest, servedInScope } from "../../core/http/request-scope";
import { scopeLooks } from "../support/scope-look";

/**
 * servedInScope (core/http/request-scope.ts): what a request awaits sees its
 * scope; requestScope lets go of node's async hooks once no request has been
 * served in it for SCOPE_IDLE_MS, never while one is, and takes them again
 * for the next request. Whether it holds them is looked at from work a
 * request left running (test/support/scope-look.ts): it sees that request's
 * scope while requestScope is on, none once it let go.
 */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("servedInScope", () => {
  beforeEach(async () => {
    // whatever an earlier test served has gone idle
    await pause(SCOPE_IDLE_MS + 100);
  });

  it("keeps a request's scope across its awaits while another request's idle time passes, and lets go once none is served", async () => {
    const [whileSlow, afterSlow, idleAfterSlow] = await scopeLooks(3);
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
    expect(await whileSlow()).toMatchObject({ requestId: "scope-look" });
    expect(await slow).toBe("slow");
    expect(await afterSlow()).toMatchObject({ requestId: "scope-look" });
    await pause(SCOPE_IDLE_MS + 100);
    expect(await idleAfterSlow()).toBeUndefined();
    expect(currentRequest()).toBeUndefined();
  });

  it("gives the next request its scope again after letting go", async () => {
    const [idle, afterNext] = await scopeLooks(2);
    await pause(SCOPE_IDLE_MS + 100);
    expect(await idle()).toBeUndefined();
    const seen = await servedInScope({ requestId: "next" }, async () => {
      await pause(5);
      await Promise.resolve();
      return currentRequest()?.requestId;
    });
    expect(seen).toBe("next");
    expect(await afterNext()).toMatchObject({ requestId: "scope-look" });
  });

  it("settles as the request does, a rejection included, and counts a request that throws at once as answered", async () => {
    const [idle] = await scopeLooks(1);
    await expect(servedInScope({ requestId: "fails" }, async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(() =>
      servedInScope({ requestId: "throws" }, () => {
        throw new Error("at once");
      }),
    ).toThrow("at once");
    await pause(SCOPE_IDLE_MS + 100);
    expect(await idle()).toBeUndefined();
  });
});
