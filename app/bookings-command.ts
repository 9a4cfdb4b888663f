import { parseArgs } from "node:util";
import { actionOf, bodyOption, runStoreCommand, STORE_COMMAND_OPTIONS, UsageError, type Lines } from "./store-command";
import type { BookingsClient } from "../plugins/bookings/client";
import type { Booking } from "../plugins/bookings/model";
import type { Gateway } from "./gateway";

export const BOOKINGS_USAGE = `Usage (we are the eMSP; <partner> is the CPO partner's id):
  ocpi-gateway bookings request <partner> --location ID --booking-location ID --from DATETIME --to DATETIME
                                [--token-uid UID [--token-type RFID] [--contract-id ID]]... [--body JSON] [--wait SECONDS] [--json]
  ocpi-gateway bookings cancel <partner> <booking_id> [--reason CANCELED_REASON] [--json]
  ocpi-gateway bookings get <partner> <booking_id>        the booking as we hold it (the answer, then the CPO's pushes)
  ocpi-gateway bookings list <partner> [--json]           the CPO's list of our bookings
  ocpi-gateway bookings locations <partner>               the CPO's BookingLocations and free timeslots
Each takes [--config FILE]. --body is BookingRequest fields as JSON (2.3.0); the requester (our first eMSP party),
request_id and authorization_reference are filled in unless given. --wait follows a PENDING booking until the CPO
decides it (its push reaches the serving gateway's store) or the seconds pass.
Exit code 0: done; 1: refused or failed (the message names the field or the reason); 2: usage error.`;

const ARITY = { request: 1, list: 1, locations: 1, cancel: 2, get: 2 } as const;

/**
 * `ocpi-gateway bookings …`: the eMSP's backend booking a charger at a CPO partner from the command line,
 * through the same BookingsClient as the admin API (`/admin/v1/bookings/<partner>…`): the same checks (2001
 * naming the field), the same calls to the CPO, the same answers. It runs on the gateway's store and
 * registrations, beside a serving gateway, like the `terminals` command.
 */
export const runBookingsCommand = (argv: string[], out: Lines, err: Lines): Promise<number> =>
  runStoreCommand({ name: "bookings", usage: BOOKINGS_USAGE, parse, served: clientOf, notServed: "this gateway does not serve the bookings Receiver (modules.bookings with role RECEIVER): it is no eMSP that books", run }, argv, out, err);

const parse = (argv: string[]) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...STORE_COMMAND_OPTIONS,
      location: { type: "string" },
      "booking-location": { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      "token-uid": { type: "string", multiple: true },
      "token-type": { type: "string" },
      "contract-id": { type: "string" },
      body: { type: "string" },
      wait: { type: "string" },
      reason: { type: "string" },
    },
    allowPositionals: true,
  });
  if (values.help) return "help" as const;
  const { action, partner, id: bookingId } = actionOf(positionals, ARITY, "booking_id");
  const body = bodyOption(values.body);
  const waitSeconds = values.wait === undefined ? 0 : Number(values.wait);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0) throw new UsageError("--wait takes a number of seconds");
  // the flags are shorthands for fields of the body; what is missing or wrong is the client's to refuse (2001)
  if (values.location !== undefined) body.location_id = values.location;
  if (values["booking-location"] !== undefined) body.booking_location_id = values["booking-location"];
  if (values.from !== undefined || values.to !== undefined) body.period = { start_date_time: values.from, end_date_time: values.to };
  const uids = values["token-uid"] ?? [];
  return {
    action,
    partner,
    bookingId: bookingId ?? "",
    body,
    tokens: uids.map((uid) => ({ uid, type: values["token-type"] ?? "RFID", contract_id: values["contract-id"] ?? uid })),
    waitMs: waitSeconds * 1000,
    reason: values.reason,
    json: values.json ?? false,
    configFile: values.config ?? process.env.GATEWAY_CONFIG ?? "./gateway.config.yaml",
  };
};

type Command = Exclude<ReturnType<typeof parse>, "help">;

/** The BookingsClient of the bookings plugin this gateway serves as a Receiver, if it does. */
const clientOf = async (gateway: Gateway): Promise<BookingsClient | undefined> => {
  const [{ ModuleCatalog }, { BookingsPlugin }] = await Promise.all([import("../core/modules/module-catalog"), import("../plugins/bookings/module")]);
  const served = gateway.container.resolve(ModuleCatalog).served.find((s) => s.plugin.module === "bookings" && s.role === "RECEIVER");
  return served?.plugin instanceof BookingsPlugin ? served.plugin.client : undefined;
};

/** The booking as we hold it, until the CPO has decided a PENDING one or `waitMs` passed. */
const followed = async (client: BookingsClient, partner: string, booking: Booking, waitMs: number): Promise<Booking> => {
  const deadline = Date.now() + waitMs;
  let current = booking;
  while (current.reservation_status === "PENDING" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    current = await client.held(partner, booking.id);
  }
  return current;
};

const run = async (client: BookingsClient, command: Command, out: (line: string) => void): Promise<void> => {
  const { action, partner, bookingId, json } = command;
  const print = (value: unknown) => out(JSON.stringify(value, null, 2));
  const show = (booking: Booking) => (json ? print(booking) : out(describe(booking)));
  switch (action) {
    case "request": {
      const body = command.tokens.length ? { ...command.body, tokens: command.tokens } : command.body;
      return show(await followed(client, partner, await client.request(partner, body), command.waitMs));
    }
    case "cancel":
      return show(await client.cancel(partner, bookingId, command.reason));
    case "get":
      return print(await client.held(partner, bookingId));
    case "list": {
      const bookings = await client.bookings(partner);
      if (json) return print(bookings);
      if (!bookings.length) return out(`${partner} lists no bookings of ours`);
      for (const booking of bookings) out(describe(booking));
      return;
    }
    case "locations":
      return print(await client.locations(partner));
  }
};

const describe = (b: Booking): string =>
  [b.id, b.reservation_status, `request ${b.request_id}`, `location ${b.location_id}`, `${b.period.start_date_time} – ${b.period.end_date_time}`].join("  ");
