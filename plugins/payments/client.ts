import type { PartnerClient } from "../../core/client/partner-client";
import type { ObjectType } from "../../core/contract/object-type";
import { FACS, TERMINALS, type FinancialAdviceConfirmation, type Terminal, type TerminalActivation, type TerminalAssignment } from "./model";
import { facObjectType, terminalActivationObjectType, terminalAssignmentObjectType, terminalObjectType, terminalUpdateObjectType } from "./translate";

const enc = encodeURIComponent;

/**
 * Outbound calls of the payments module to a PTP partner's Sender
 * interface (we are the CPO): activation, deactivation, updates and
 * assignments of terminals, and reads. Translation to the partner's
 * version is PartnerClient's.
 */
export class PaymentsClient {
  constructor(private readonly partners: PartnerClient) {}

  /** Answers what the PTP answered: the activated Terminal when it sends one (the spec leaves it undefined). */
  async activate(partnerId: string, request: TerminalActivation): Promise<unknown> {
    return this.send(partnerId, "POST", `/${TERMINALS}/activate`, terminalActivationObjectType, request);
  }

  async deactivate(partnerId: string, terminalId: string): Promise<void> {
    await this.partners.call(partnerId, { module: "payments", role: "SENDER", method: "POST", path: `/${TERMINALS}/${enc(terminalId)}/deactivate` });
  }

  async update(partnerId: string, terminalId: string, terminal: Partial<Terminal>): Promise<void> {
    await this.send(partnerId, "PUT", `/${TERMINALS}/${enc(terminalId)}`, terminalUpdateObjectType, terminal);
  }

  async assign(partnerId: string, terminalId: string, assignment: TerminalAssignment): Promise<void> {
    await this.send(partnerId, "PATCH", `/${TERMINALS}/${enc(terminalId)}`, terminalAssignmentObjectType, assignment);
  }

  getTerminal(partnerId: string, terminalId: string): Promise<Terminal | undefined> {
    return this.partners.get(partnerId, { module: "payments", role: "SENDER", path: `/${TERMINALS}/${enc(terminalId)}` }, terminalObjectType);
  }

  getFac(partnerId: string, id: string): Promise<FinancialAdviceConfirmation | undefined> {
    return this.partners.get(partnerId, { module: "payments", role: "SENDER", path: `/${FACS}/${enc(id)}` }, facObjectType);
  }

  private async send<T>(partnerId: string, method: "POST" | "PUT" | "PATCH", path: string, type: ObjectType<T>, value: T): Promise<unknown> {
    const result = await this.partners.call(partnerId, { module: "payments", role: "SENDER", method, path, body: { type, value } });
    return result.envelope.data;
  }
}
