/** Plain rows the read layer returns: SteVe's facts, camelCased, with no OCPI decisions in them. */

export interface AddressRow {
  street: string | null;
  houseNumber: string | null;
  zipCode: string | null;
  city: string | null;
  /** ISO 3166 alpha-2, as SteVe stores it */
  country: string | null;
  /** decimal degrees as the DECIMAL(11,8) text, exact */
  latitude: string | null;
  longitude: string | null;
  /** IANA zone; SteVe 3.14.1+ */
  timeZone: string | null;
}

export interface ChargeBoxRow {
  chargeBoxPk: number;
  chargeBoxId: string;
  ocppProtocol: string | null;
  registrationStatus: string;
  description: string | null;
  meterSerialNumber: string | null;
  lastHeartbeat: Date | null;
  /** newest of charge_box, address, evse and evse_connector updated_at; null before SteVe 3.13 */
  updatedAt: Date | null;
  address: AddressRow | null;
}

export interface ConnectorRow {
  connectorId: number;
  /** OCPI 2.2.1 literals (IEC_62196_T2…) in SteVe 3.13+; null when not filled in or before 3.13 */
  connectorType: string | null;
  connectorFormat: string | null;
  powerType: string | null;
  maxVoltage: number | null;
  maxAmperage: number | null;
  maxElectricPower: number | null;
  updatedAt: Date | null;
}

export interface EvseRow {
  evsePk: number;
  chargeBoxId: string;
  /** the OCPP connectorId; never 0 here (0 is the whole station) */
  evseId: number;
  evseIdExternal: string | null;
  updatedAt: Date | null;
  /** before 3.13 one plug with unknown attributes per EVSE */
  connectors: ConnectorRow[];
}

export interface StatusRow {
  evsePk: number;
  chargeBoxId: string;
  /** 0: a status of the whole station */
  evseId: number;
  status: string | null;
  statusTimestamp: Date | null;
  errorCode: string | null;
  errorInfo: string | null;
  vendorErrorCode: string | null;
}

export interface ActiveReservation {
  reservationPk: number;
  idTag: string;
  expiry: Date;
}

/** Everything the EVSE status depends on, for one EVSE (mapping/status.ts decides). */
export interface EvseStatusFacts {
  evsePk: number;
  chargeBoxId: string;
  evseId: number;
  /** newest connector_status of this EVSE */
  latest: StatusRow | null;
  /** newest connector_status of the station (evse 0) */
  station: StatusRow | null;
  registrationStatus: string;
  lastHeartbeat: Date | null;
  reservation: ActiveReservation | null;
}

export interface MeterValueRow {
  timestamp: Date;
  value: string;
  /** OCPP defaults applied where the station left them out */
  readingContext: string;
  format: string;
  measurand: string;
  location: string;
  unit: string;
  phase: string | null;
}

export interface EnergyReading {
  at: Date;
  kwh: number;
}

export interface TransactionRow {
  transactionPk: number;
  evsePk: number;
  chargeBoxId: string;
  evseId: number;
  idTag: string;
  /** insert time on SteVe's clock (watermarks) */
  startEventTimestamp: Date;
  /** station clock */
  startTimestamp: Date;
  startValue: string;
  stopEventTimestamp: Date | null;
  stopTimestamp: Date | null;
  stopValue: string | null;
  stopReason: string | null;
  stopEventActor: string | null;
  meterValues: MeterValueRow[];
  /** meter register in kWh over time: start, every Energy.Active.Import.Register sample, stop */
  energy: EnergyReading[];
  /** energy charged so far (or in total once stopped), kWh */
  kwh: number;
}

export interface OcppTagRow {
  ocppTagPk: number;
  idTag: string;
  parentIdTag: string | null;
  expiryDate: Date | null;
  /** 0 = blocked */
  maxActiveTransactionCount: number;
  activeTransactionCount: number;
  note: string | null;
  updatedAt: Date | null;
}

export interface ReservationRow {
  reservationPk: number;
  evsePk: number;
  chargeBoxId: string;
  evseId: number;
  transactionPk: number | null;
  idTag: string;
  startDatetime: Date | null;
  expiryDatetime: Date | null;
  status: string;
}
