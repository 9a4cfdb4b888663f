import type { Pool, RowDataPacket } from "mysql2/promise";

/**
 * What a station of the fake SteVe (fake-steve.ts) does about a reservation it holds (OCPP 1.6 ReserveNow,
 * StartTransaction), and how SteVe records it (its ReservationRepositoryImpl): a ReserveNow for a connector
 * reserved already under another idTag is answered Occupied; a RemoteStartTransaction there for another idTag
 * is Rejected; a transaction started with the reservation's idTag carries its reservationId, and SteVe marks
 * the reservation USED with the transaction's transaction_pk.
 */
export function stationReservations(writer: Pool, pk: "evse_pk" | "connector_pk") {
  /** the reservation holding the connector now: ACCEPTED, not expired, not used */
  const holding = async (evse: number): Promise<{ reservationPk: number; idTag: string } | undefined> => {
    const [rows] = await writer.query<RowDataPacket[]>(
      `SELECT reservation_pk AS reservationPk, id_tag AS idTag FROM reservation
       WHERE ${pk} = ? AND status = 'ACCEPTED' AND transaction_pk IS NULL AND start_datetime <= ? AND expiry_datetime > ?
       ORDER BY reservation_pk LIMIT 1`,
      [evse, new Date(), new Date()],
    );
    return rows[0] as { reservationPk: number; idTag: string } | undefined;
  };
  return {
    /** the station's refusal of a ReserveNow or RemoteStartTransaction for `idTag` on `evse`, or undefined */
    async refusal(operation: string, evse: number, idTag: string): Promise<string | undefined> {
      const held = await holding(evse);
      if (!held || held.idTag === idTag) return undefined;
      if (operation === "ReserveNow") return "Occupied";
      return operation === "RemoteStartTransaction" ? "Rejected" : undefined;
    },
    /** StartTransaction with the reservationId of the connector's reservation for `idTag`: SteVe marks it USED */
    async use(evse: number, idTag: string, transactionPk: number): Promise<void> {
      const held = await holding(evse);
      if (held?.idTag === idTag)
        await writer.query("UPDATE reservation SET status = 'USED', transaction_pk = ? WHERE reservation_pk = ? AND status = 'ACCEPTED'", [transactionPk, held.reservationPk]);
    },
  };
}
