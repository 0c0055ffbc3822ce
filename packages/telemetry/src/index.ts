export {
  createLogger,
  errorFields,
  type Logger,
  type LoggerOptions,
  loggerFromEnv,
} from "./logger.ts";
export { type Collect, GatewayMetrics, quotaToUsdNumber } from "./metrics.ts";
export { requestIdFrom } from "./request-id.ts";
