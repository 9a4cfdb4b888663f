import type { Session } from "../../sessions/model";
import type { AuditedCdr } from "./audited-cdr";
import type { Difference } from "./model";

/**
 * A CDR against the Session it closes (OCPI 2.2.1 CDRs: session_id, "the
 * Session this CDR belongs to"): the same token, authorization_reference,
 * start and end, and the energy the Session last reported.
 */
const KWH_TOLERANCE = 0.001;

const sameInstant = (a?: string, b?: string): boolean => a === b || (!!a && !!b && Date.parse(a) === Date.parse(b));

export const sessionDifferences = (cdr: AuditedCdr, session: Session): Difference[] => {
  const differences: Difference[] = [];
  const say = (field: string, stated: string | number | null, expected: string | number | null, explanation: string) =>
    differences.push({ field, cdr: stated, expected, explanation });
  if (Math.abs(session.kwh - cdr.total_energy) > KWH_TOLERANCE)
    say("total_energy", cdr.total_energy, session.kwh, `Session ${session.id} reported ${session.kwh} kWh`);
  if (!sameInstant(cdr.start_date_time, session.start_date_time))
    say("start_date_time", cdr.start_date_time, session.start_date_time, `Session ${session.id} started at ${session.start_date_time}`);
  if (session.end_date_time && !sameInstant(cdr.end_date_time, session.end_date_time))
    say("end_date_time", cdr.end_date_time, session.end_date_time, `Session ${session.id} ended at ${session.end_date_time}`);
  if ((cdr.authorization_reference ?? null) !== (session.authorization_reference ?? null))
    say(
      "authorization_reference",
      cdr.authorization_reference ?? null,
      session.authorization_reference ?? null,
      `Session ${session.id} carries authorization_reference ${session.authorization_reference ?? "none"}`,
    );
  for (const key of ["uid", "contract_id"] as const)
    if (String(cdr.cdr_token[key]).toUpperCase() !== String(session.cdr_token[key]).toUpperCase())
      say(`cdr_token.${key}`, cdr.cdr_token[key], session.cdr_token[key], `Session ${session.id} was authorized with token ${key} ${session.cdr_token[key]}`);
  return differences;
};
