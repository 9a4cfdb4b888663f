import type { DataChange } from "../../core/contract/change-feed";

/** Status PATCHes of NL/GWY's LOC1, as an adapter reports them: each call a change of an EVSE not changed before. */
export const evseStatusChanges = (): (() => DataChange) => {
  let n = 0;
  return () => {
    n++;
    return {
      module: "locations",
      owner: { country_code: "NL", party_id: "GWY" },
      path: ["LOC1", `EVSE${n}`],
      kind: "patch",
      object: { status: "CHARGING", last_updated: new Date(Date.UTC(2026, 0, 1) + n).toISOString() },
    };
  };
};
