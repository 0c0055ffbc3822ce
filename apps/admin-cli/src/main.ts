#!/usr/bin/env bun
/** The admin CLI: `bun run admin <noun> <verb> ...` from the repo, or the `gw-admin` bin. */
import { run } from "./cli.ts";

process.exitCode = await run(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
