/** One sample of a Prometheus exposition: metric name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (what prom-client writes); comments and blank lines are skipped. */
export const parsePrometheus = (text: string): Sample[] => {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const m of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[m[1]] = m[2].replace(/\\(.)/g, "$1");
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
};

/** The samples of `name` whose labels include `where`. */
export const samplesOf = (samples: Sample[], name: string, where: Record<string, string> = {}): Sample[] =>
  samples.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v));

/** The sum of the samples of `name` whose labels include `where`. */
export const sumOf = (samples: Sample[], name: string, where: Record<string, string> = {}): number =>
  samplesOf(samples, name, where).reduce((sum, s) => sum + s.value, 0);
