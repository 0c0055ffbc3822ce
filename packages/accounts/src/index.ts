export * from "./keys.ts";
export * from "./principal.ts";
export * from "./users.ts";
