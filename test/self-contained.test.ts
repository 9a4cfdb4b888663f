import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * Issue #22: the repository stands on its own. A user clones only the
 * repository, so no file in it (code, tests, benches, scripts, docs, config)
 * may read or cite a path outside it: a relative path that climbs above the
 * repository's root (the shared folder beside a checkout, or three folders
 * up from test/support), or an absolute path into a place another checkout
 * or user owns. Absolute paths of installed programs (`/usr/bin/chromium`,
 * `/usr/sbin/mariadbd`) and of the kernel's devices (`/dev/null`) are the
 * machine's, not another checkout's, and stay allowed.
 */
const ROOT = path.resolve(__dirname, "..");

/** Top folders of absolute paths that hold someone's files; built from pieces so this file does not match itself. */
const FOREIGN_TOPS = ["work", "home", "root", "Users", "mnt", "srv", "opt", "tmp", "var", "etc", "private"];
const ABSOLUTE = new RegExp(`(?:^|[\\s"'\`(=:,\\[])(/(?:${FOREIGN_TOPS.join("|")})/[^\\s"'\`)\\]]*)`, "g");
/** A run of `../` (or `..\`) starting a path, as written in a string, a link or a comment. */
const CLIMBING = /(?:^|[\s"'`(=:,[<])((?:\.\.[/\\])+[^\s"'`)\]>,;]*)/g;
/** Material that is not in the repository, named by its folder whatever the path before it. */
const NOTES = ["ocpi", "notes"].join("-");
const SHARED = new RegExp([`\\.\\./shared\\b`, `\\bshared/(?:${NOTES}|steve|legacy-tms|spec|toolchain|STYLE)\\b`, `\\b${NOTES}\\b`].join("|"), "g");

const SKIPPED_FOLDERS = new Set(["node_modules", "dist", ".git", "data", "test-artifacts", ".tmp"]);

/** The files a clone has: what git tracks plus what it would add (untracked, not ignored); a walk where git is absent. */
const repositoryFiles = (): string[] => {
  try {
    const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
    return out.split("\0").filter((f) => f !== "" && fs.existsSync(path.join(ROOT, f)));
  } catch {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!SKIPPED_FOLDERS.has(entry.name)) walk(rel);
        } else found.push(rel);
      }
    };
    walk("");
    return found;
  }
};

/** Lockfiles name registry URLs and nothing of ours; everything else that is text is read. */
const isScanned = (file: string): boolean => !/(^|\/)package-lock\.json$/.test(file);

/** Every reference in `text` (the content of `file`, relative to the root) to a place outside the repository. */
export const outsideReferences = (file: string, text: string): string[] => {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    for (const m of line.matchAll(SHARED)) found.push(`${at}: ${m[0]}`);
    for (const m of line.matchAll(ABSOLUTE)) found.push(`${at}: ${m[1]}`);
    for (const m of line.matchAll(CLIMBING)) {
      const target = path.resolve(ROOT, path.dirname(file), m[1].replace(/\\/g, "/"));
      if (target !== ROOT && !target.startsWith(ROOT + path.sep)) found.push(`${at}: ${m[1]}`);
    }
  });
  return found;
};

describe("the repository stands on its own", () => {
  it("no file refers to a path outside the repository", () => {
    const files = repositoryFiles().filter(isScanned);
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((file) => {
      // a symbolic link git lists (node_modules linked into a second worktree) is no file of ours to read
      if (!fs.lstatSync(path.join(ROOT, file)).isFile()) return [];
      const bytes = fs.readFileSync(path.join(ROOT, file));
      if (bytes.includes(0)) return []; // binary
      return outsideReferences(file, bytes.toString("utf8"));
    });
    expect(found).toEqual([]);
  });

  it("finds each kind of outside reference, and passes the repository's own paths and installed programs", () => {
    const refs = (file: string, text: string) => outsideReferences(file, text).map((r) => r.replace(/^[^ ]+ /, ""));
    const up = (n: number) => "..".concat("/").repeat(n);
    const shared = ["sha", "red"].join("");
    expect(refs("test/support/x.ts", `path.resolve(__dirname, "${up(3)}${shared}/examples")`)).toEqual([`${up(1)}${shared}`, `${up(3)}${shared}/examples`]);
    expect(refs("README.md", `see [the contract](${up(1)}legacy/API.md)`)).toEqual([`${up(1)}legacy/API.md`]);
    expect(refs("core/x.ts", `readFileSync("/${"wo"}rk/notes/a.json")`)).toEqual([`/${"wo"}rk/notes/a.json`]);
    expect(refs("docs/a.md", `(from ${shared}/steve/README.md §2)`)).toEqual([`${shared}/steve`]);
    expect(refs("core/x.ts", `// ${NOTES} §1.5`)).toEqual([NOTES]);
    expect(refs("test/core/x.test.ts", `import { a } from "${up(2)}core/http/envelope";`)).toEqual([]);
    expect(refs("test/support/x.ts", `path.resolve(__dirname, "${up(1)}fixtures/ocpi-examples")`)).toEqual([]);
    expect(refs("test/x.ts", 'chromium.launch({ executablePath: "/usr/bin/chromium" }); fs.openSync("/dev/null")')).toEqual([]);
  });
});
