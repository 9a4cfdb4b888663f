/**
 * The adapter contract suite (test/adapter-contract/) against the proxy adapter, as part of
 * `npm test`: the same as `npm run test:adapter -- proxy` (its backend a 2.3.0 gateway on
 * loopback, test/adapter-contract/fixtures/proxy.ts).
 */
process.env.ADAPTER_CONTRACT = "proxy";
/* eslint-disable @typescript-eslint/no-require-imports */
require("../adapter-contract/senders.test");
require("../adapter-contract/receivers.test");
require("../adapter-contract/async-receivers.test");
