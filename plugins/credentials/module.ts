import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { InterfaceRole, VersionNumber } from "../../core/protocol/types";
import type { ModulePlugin, OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { SUPPORTED_VERSIONS } from "../../core/protocol/types";
import { TOKENS } from "../../core/contract/injection-tokens";
import { PartnerRegistry } from "../../core/partners/partner-registry";
import { OcpiClient } from "../../core/client/ocpi-client";
import { ModuleCatalog } from "../../core/modules/module-catalog";
import { TolerantReader } from "../../core/model/tolerant-reader";
import { written } from "../../core/modules/receiver-writes";
import { CREDENTIALS_TRANSLATION_LOSSES, credentialsType } from "./credentials-type";
import { CredentialsHandshake } from "./handshake";
import { ourCredentials } from "./our-credentials";

/**
 * The credentials module (required in every version). It needs no adapter:
 * registrations live in the gateway's store.
 */
@injectable()
export class CredentialsPlugin implements ModulePlugin {
  readonly module = "credentials";
  readonly versions: readonly VersionNumber[] = SUPPORTED_VERSIONS;
  readonly roles: readonly InterfaceRole[] = ["SENDER"];
  readonly configurationModule = true;
  readonly translationLosses = CREDENTIALS_TRANSLATION_LOSSES;
  readonly handshake: CredentialsHandshake;
  private readonly type;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    registry: PartnerRegistry,
    client: OcpiClient,
    catalog: ModuleCatalog,
    @inject(TOKENS.Logger) log: Logger,
    reader: TolerantReader,
  ) {
    this.type = credentialsType(config);
    this.handshake = new CredentialsHandshake(config, registry, client, catalog, this.type, log, reader);
  }

  portName(): undefined {
    return undefined;
  }

  routes(): RouteSpec[] {
    const body = { type: this.type, mode: "full" as const };
    return [
      {
        method: "GET",
        path: "",
        access: "bootstrap",
        response: this.type,
        // The token the caller uses with us is the one it just presented; we keep only hashes.
        handle: async (req: OcpiRequest) => ({ data: ourCredentials(this.config, presentedToken(req)) }),
      },
      {
        method: "POST",
        path: "",
        access: "bootstrap",
        body,
        response: this.type,
        handle: async (req) => ({ data: await this.handshake.accept(req.ctx.partner.id, req.ctx.version, req.body, false) }),
      },
      {
        method: "PUT",
        path: "",
        access: "bootstrap",
        body,
        response: this.type,
        handle: async (req) => ({ data: await this.handshake.accept(req.ctx.partner.id, req.ctx.version, req.body, true) }),
      },
      {
        method: "DELETE",
        path: "",
        access: "bootstrap",
        handle: async (req) => {
          await this.handshake.remove(req.ctx.partner.id);
          return written();
        },
      },
    ];
  }
}

const presentedToken = (req: OcpiRequest): string => req.ctx.partner.token;
