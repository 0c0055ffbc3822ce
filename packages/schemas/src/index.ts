export * from "./admin.ts";
export * from "./balance.ts";
export * from "./errors.ts";
