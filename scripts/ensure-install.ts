import { existsSync } from "node:fs";
import { join } from "node:path";

/** Runs `bun install` once on a fresh checkout, so the quick-start commands need nothing before them. */
export function ensureInstalled(root: string, tag: string): void {
  if (existsSync(join(root, "node_modules", "@gw", "api"))) return;
  console.log(`[${tag}] installing dependencies (bun install)`);
  const install = Bun.spawnSync(["bun", "install"], {
    cwd: root,
    stdio: ["inherit", "inherit", "inherit"],
  });
  if (install.exitCode !== 0) process.exit(install.exitCode ?? 1);
}
