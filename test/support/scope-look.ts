import { requestScope, servedInScope, type RequestScope } from "../../core/http/request-scope";

/** One look, later, at requestScope from work a request left running: what requestScope.getStore() answers there. */
export type ScopeLook = () => Promise<RequestScope | undefined>;

/**
 * Looks at requestScope from work that a request served in it left running
 * (a promise reaction set up while it was served), through node's public
 * API only: such work sees the request's scope while requestScope is on,
 * and nothing once requestScope has let go of node's async hooks
 * (AsyncLocalStorage.disable: "all subsequent calls to getStore() return
 * undefined until run() is called again"), until a request enters it again.
 * `count` looks, each to be taken once, in the order wanted.
 */
export const scopeLooks = async (count: number): Promise<ScopeLook[]> =>
  servedInScope({ requestId: "scope-look" }, async () =>
    Array.from({ length: count }, (): ScopeLook => {
      let release!: () => void;
      const seen = new Promise<void>((resolve) => (release = resolve)).then(() => requestScope.getStore());
      return () => {
        release();
        return seen;
      };
    }),
  );
