export {
  createLimiter,
  type IpCheck,
  type IpGroup,
  type IpTier,
  type KeyCheck,
  type Limiter,
  type LimiterOptions,
  LimiterUnavailableError,
  type LimitName,
  type LimitResult,
} from "./limiter.ts";
export {
  describeWindow,
  KEY_RPM_WINDOW_MS,
  LIMIT_ENV,
  type LimitPolicy,
  type Parsed,
  parseDuration,
  parseLimitPolicy,
  parseWindow,
  type WindowPolicy,
} from "./policy.ts";
export { checkWindow, type WindowCheck, type WindowResult } from "./window.ts";
export {
  checkWindows,
  type WindowFigures,
  type WindowSpec,
  type WindowsCheck,
  type WindowsResult,
} from "./windows.ts";
