export { type AppDeps, createApp, type GatewayApp } from "./app.ts";
export { type ApiConfig, loadConfig } from "./config.ts";
