import { createLocalAdapterFactory } from "./factory";
import { localSessions } from "./sessions";
import { localCdrs } from "./cdrs";
import { localTariffs } from "./tariffs";
import { localTokens } from "./tokens";

/** The `local` adapter with every module it implements. */
export const localAdapterFactory = createLocalAdapterFactory([localSessions, localCdrs, localTariffs, localTokens]);
