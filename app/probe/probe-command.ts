import { formatReport, probePartner } from "./probe";

/** `ocpi-gateway probe <versions_url> --token <token> [--json]`: exit 0 when nothing failed, 1 otherwise, 2 on a usage error. */
export const runProbeCommand = async (
  args: string[],
  token: string | undefined,
  json: boolean,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> => {
  const [versionsUrl] = args;
  if (!versionsUrl || !token || args.length !== 1) {
    err("Usage: ocpi-gateway probe <versions_url> --token <token A or C> [--json]");
    return 2;
  }
  try {
    new URL(versionsUrl);
  } catch {
    err(`Not a URL: ${versionsUrl}`);
    return 2;
  }
  const report = await probePartner(versionsUrl, token);
  out(json ? JSON.stringify(report, null, 2) : formatReport(report));
  return report.passed ? 0 : 1;
};
