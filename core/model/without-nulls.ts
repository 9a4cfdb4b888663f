/**
 * OCPI cardinality `?` and `*` fields may be sent as null, meaning absent
 * (ocpi-notes §1.5). Dropping them before validation lets every schema
 * treat optional fields one way. Array elements are kept as they are.
 */
export const withoutNulls = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== null) out[key] = withoutNulls(item);
  return out;
};
