export {
  createSafeFetcher,
  DEFAULT_FETCH_LIMITS,
  type FetchFailureCode,
  type FetchLimits,
  type FetchResult,
  type Outgoing,
  type SafeFetcher,
  type SafeFetcherOptions,
  USER_AGENT,
} from "./fetcher.ts";
export { createUrlCheck, FETCH_ENV, type UrlPolicy, urlPolicyFromEnv } from "./policy.ts";
