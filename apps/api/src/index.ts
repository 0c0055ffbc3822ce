export { createKey } from "./accounts/keys.ts";
export { createUser, findUser } from "./accounts/users.ts";
export { type AppDeps, createApp, type GatewayApp } from "./app.ts";
export { type ApiConfig, loadConfig } from "./config.ts";
