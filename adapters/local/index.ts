import { createLocalAdapterFactory } from "./factory";
import { localLocations } from "./locations";
import { localSessions } from "./sessions";
import { localCdrs } from "./cdrs";
import { localTariffs } from "./tariffs";
import { localTokens } from "./tokens";
import { localCommands } from "./commands";
import { localChargingProfiles } from "./chargingprofiles";
import { localPayments } from "./payments";
import { localInvoiceReconciliation } from "./invoicereconciliation";
import { localBookings } from "./bookings";

/** The `local` adapter with every module it implements. */
export const localAdapterFactory = createLocalAdapterFactory([
  localLocations,
  localSessions,
  localCdrs,
  localTariffs,
  localTokens,
  localCommands,
  localChargingProfiles,
  localPayments,
  localInvoiceReconciliation,
  localBookings,
]);
