/**
 * Canonical (OCPI 2.3.0) Tariff model. Other versions are translated to and
 * from it in translate.ts. Objects keep unknown properties (2.3.0
 * extensibility), hence the index signatures.
 */

export const TARIFF_TYPES = ["AD_HOC_PAYMENT", "PROFILE_CHEAP", "PROFILE_FAST", "PROFILE_GREEN", "REGULAR"] as const;
export type TariffType = (typeof TARIFF_TYPES)[number];

export const TARIFF_DIMENSION_TYPES = ["ENERGY", "FLAT", "PARKING_TIME", "TIME"] as const;
export type TariffDimensionType = (typeof TARIFF_DIMENSION_TYPES)[number];

export const DAYS_OF_WEEK = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"] as const;
export type DayOfWeek = (typeof DAYS_OF_WEEK)[number];

/** 2.2+ */
export const RESERVATION_RESTRICTION_TYPES = ["RESERVATION", "RESERVATION_EXPIRES"] as const;
export type ReservationRestrictionType = (typeof RESERVATION_RESTRICTION_TYPES)[number];

/** 2.3.0 Bookings extension */
export const BOOKING_RESTRICTION_TYPES = ["BOOKING", "BOOKING_EXPIRES", "BOOKING_CANCELLATION_FEES", "BOOKING_OVERTIME"] as const;
export type BookingRestrictionType = (typeof BOOKING_RESTRICTION_TYPES)[number];

/** 2.3.0: whether PriceComponent prices include taxes */
export const TAX_INCLUDED_VALUES = ["YES", "NO", "N/A"] as const;
export type TaxIncluded = (typeof TAX_INCLUDED_VALUES)[number];

/** 2.3.0 min/max price of a tariff (2.2.1 used Price {excl_vat, incl_vat}). */
export interface PriceLimit {
  before_taxes: number;
  after_taxes?: number | null;
  [extra: string]: unknown;
}

export interface PriceComponent {
  type: TariffDimensionType;
  price: number;
  /** percent; absent means no VAT applicable (differs from 0) */
  vat?: number | null;
  step_size: number;
  [extra: string]: unknown;
}

export interface TariffRestrictions {
  start_time?: string | null;
  end_time?: string | null;
  start_date?: string | null;
  end_date?: string | null;
  min_kwh?: number | null;
  max_kwh?: number | null;
  min_current?: number | null;
  max_current?: number | null;
  min_power?: number | null;
  max_power?: number | null;
  min_duration?: number | null;
  max_duration?: number | null;
  day_of_week?: DayOfWeek[] | null;
  reservation?: ReservationRestrictionType | null;
  booking?: BookingRestrictionType | null;
  [extra: string]: unknown;
}

export interface TariffElement {
  price_components: PriceComponent[];
  restrictions?: TariffRestrictions | null;
  [extra: string]: unknown;
}

export interface DisplayText {
  language: string;
  text: string;
}

export interface Tariff {
  country_code: string;
  party_id: string;
  id: string;
  currency: string;
  type?: TariffType | null;
  tariff_alt_text?: DisplayText[] | null;
  tariff_alt_url?: string | null;
  min_price?: PriceLimit | null;
  max_price?: PriceLimit | null;
  /** 2.3.0 with the Payments module */
  preauthorize_amount?: number | null;
  elements: TariffElement[];
  tax_included: TaxIncluded;
  start_date_time?: string | null;
  end_date_time?: string | null;
  energy_mix?: Record<string, unknown> | null;
  last_updated: string;
  [extra: string]: unknown;
}
