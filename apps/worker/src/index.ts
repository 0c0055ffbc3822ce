export { runMaintenance, startMaintenance } from "./maintenance.ts";
