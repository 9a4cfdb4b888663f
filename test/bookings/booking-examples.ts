import { readFileSync } from "node:fs";
import path from "node:path";
import { EXAMPLES } from "../support/ocpi-examples";

type Json = Record<string, any>;

const FOLDER = "2.3.0-bookings-1.1";

/** A published Bookings 1.1 example, vendored verbatim (its defects: test/fixtures/ocpi-examples/NOTICE.md). */
export const example = (file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, FOLDER, file), "utf8"));

/** booking_location_example.json with its defects mended: seconds 99, evse_position not a list, the duplicate calendar id */
export const mendedLocation = (party_id = "INF"): Json => {
  const location = example("booking_location_example.json");
  const text = JSON.stringify({ ...location, party_id, booking_option: { ...location.booking_option, evse_position: ["LEFT"] } }).replaceAll(":99Z", ":59Z");
  const mended = JSON.parse(text);
  mended.calendars[1].id = "CA113";
  return mended;
};

/** booking_example.json with party_ids of three characters and its requests' booking_location_id (required, left out) */
export const mendedBooking = (): Json => {
  const booking = JSON.parse(JSON.stringify(example("booking_example.json")).replaceAll('"INF12"', '"INF"').replaceAll('"INFOO"', '"INF"'));
  for (const r of booking.booking_requests) r.booking_request.booking_location_id = "BL0123";
  return booking;
};
