export * from "./admin.ts";
export * from "./balance.ts";
export * from "./errors.ts";
export * from "./images.ts";
export * from "./media.ts";
export * from "./models.ts";
export * from "./tokens.ts";
export * from "./usage.ts";
