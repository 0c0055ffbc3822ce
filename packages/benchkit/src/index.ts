/**
 * The harness of the benches and multi-process tests: load loop, tables, an isolated
 * store per run, child-process servers. Internal; nothing in production imports it.
 */
export * from "./child.ts";
export * from "./load.ts";
export * from "./store.ts";
export * from "./table.ts";
