/** A figure about one partner a module shows on the status page, e.g. the CDRs audited in the last day. */
export interface PartnerFigure {
  /** stable and short: the status page's `data-figure` attribute */
  id: string;
  label: string;
  value: number;
  /** the figure calls for the operator's attention (shown in red when not 0) */
  alarming?: boolean;
}
