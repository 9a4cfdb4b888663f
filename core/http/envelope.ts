import { Status } from "../protocol/status";

export interface Envelope<T = unknown> {
  data?: T;
  status_code: number;
  status_message?: string;
  timestamp: string;
}

/** UTC with a Z designator and whole seconds, the most widely accepted DateTime form. */
export const ocpiTimestamp = (date = new Date()): string => date.toISOString().replace(/\.\d{3}Z$/, "Z");

export const envelope = <T>(data: T | undefined, statusCode: number = Status.SUCCESS, message?: string): Envelope<T> => {
  const body: Envelope<T> = { status_code: statusCode, timestamp: ocpiTimestamp() };
  if (message !== undefined) body.status_message = message;
  if (data !== undefined) body.data = data;
  return body;
};
