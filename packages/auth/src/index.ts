export { type ClientIpResolver, createClientIpResolver, parseTrustedProxies } from "./client-ip.ts";
export {
  type Cidr,
  cidrContains,
  compileAllowList,
  formatCidr,
  formatIp,
  ipAllowed,
  type ListValidation,
  matchesAny,
  normalizeAllowList,
  normalizeIp,
  type ParsedIp,
  parseCidr,
  parseIp,
} from "./ip.ts";
export {
  type AuthMode,
  checkKey,
  isExhausted,
  isExpired,
  type KeyCheck,
  type KeyFacts,
  type KeyRejection,
  rejectionStatus,
} from "./key-state.ts";
export { checkPublicUrl, isPublicIp } from "./public-url.ts";
export {
  generateSecret,
  hashSecret,
  looksLikeSecret,
  secretHint,
  secretMatches,
} from "./secret.ts";
