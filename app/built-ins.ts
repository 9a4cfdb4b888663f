import type { InjectionToken } from "tsyringe";
import type { ModulePlugin } from "../core/contract/module-plugin";
import type { AdapterFactory } from "../core/contract/adapter";
import { CredentialsPlugin } from "../plugins/credentials/module";
import { CdrsPlugin } from "../plugins/cdrs/module";
import { LocationsPlugin } from "../plugins/locations/module";
import { SessionsPlugin } from "../plugins/sessions/module";
import { TariffsPlugin } from "../plugins/tariffs/module";
import { TokensPlugin } from "../plugins/tokens/module";
import { CommandsPlugin } from "../plugins/commands/module";
import { ChargingProfilesPlugin } from "../plugins/chargingprofiles/module";
import { PaymentsPlugin } from "../plugins/payments/module";
import { InvoiceReconciliationPlugin } from "../plugins/invoicereconciliation/module";
import { HubClientInfoPlugin } from "../plugins/hubclientinfo/module";
import { BookingsPlugin } from "../plugins/bookings/module";
import { localAdapterFactory } from "../adapters/local";
import { steveAdapterFactory } from "../adapters/steve";
import { tmsAdapterFactory } from "../adapters/tms";
import { proxyAdapterFactory } from "../adapters/proxy";

/** Module plugins shipped with the gateway; a new module is added here. */
export const BUILT_IN_PLUGINS: InjectionToken<ModulePlugin>[] = [CredentialsPlugin, LocationsPlugin, CdrsPlugin, SessionsPlugin, TariffsPlugin, TokensPlugin, CommandsPlugin, ChargingProfilesPlugin, PaymentsPlugin, InvoiceReconciliationPlugin, BookingsPlugin, HubClientInfoPlugin];

/** Adapter types shipped with the gateway, selected by `modules.<id>.adapter` / `adapters.<name>.type`. */
export const BUILT_IN_ADAPTERS: AdapterFactory[] = [localAdapterFactory, steveAdapterFactory, tmsAdapterFactory, proxyAdapterFactory];
