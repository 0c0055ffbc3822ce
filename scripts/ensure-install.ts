import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What the installed dependencies were made from: the lockfile (patches included). */
function lockHash(root: string): string {
  const hash = createHash("sha256").update(readFileSync(join(root, "bun.lock")));
  const patch = join(root, "patches", "postgres@3.4.9.patch");
  if (existsSync(patch)) hash.update(readFileSync(patch));
  return hash.digest("hex");
}

/**
 * Runs `bun install` on a fresh checkout, or when the lockfile or a patch changed since
 * the last install, so the quick-start commands need nothing before them.
 */
export function ensureInstalled(root: string, tag: string): void {
  const marker = join(root, "node_modules", ".gw-installed");
  const wanted = lockHash(root);
  if (existsSync(marker) && readFileSync(marker, "utf8") === wanted) return;
  console.log(`[${tag}] installing dependencies (bun install)`);
  const install = Bun.spawnSync(["bun", "install"], {
    cwd: root,
    stdio: ["inherit", "inherit", "inherit"],
  });
  if (install.exitCode !== 0) process.exit(install.exitCode ?? 1);
  writeFileSync(marker, wanted);
}
