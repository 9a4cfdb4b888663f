/**
 * The adapter contract suite (test/adapter-contract/) against the steve adapter, as part of
 * `npm test`: the same as `npm run test:adapter -- steve` (SteVe 3.14 schema; set
 * ADAPTER_CONTRACT_STEVE_SCHEMA=3.12 for the older generation). The three suite files run one
 * after another in this file, so only one MariaDB of theirs runs at a time.
 */
process.env.ADAPTER_CONTRACT = "steve";
/* eslint-disable @typescript-eslint/no-require-imports */
require("../adapter-contract/senders.test");
require("../adapter-contract/receivers.test");
require("../adapter-contract/async-receivers.test");
