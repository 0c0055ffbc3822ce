--[[
  Closes an open hold in Redis after Postgres has posted or voided it: the reserved
  amount is released and the posted amount (0 for a void) leaves the balance and is
  added to the key's used budget. A hold that is not open changes nothing, so a
  repeated call is harmless.

  KEYS[1] wallet hash, KEYS[2] holds hash (same hash tag {u:<id>})
  ARGV[1] hold id
  ARGV[2] posted amount (quota, 0 for a void)

  Returns
   1  resolved
   0  no such open hold (already resolved, or never admitted here)
  -1  the wallet is not loaded; the next rebuild reads the result from Postgres
]]
local wallet = KEYS[1]
local holds = KEYS[2]
if redis.call("EXISTS", wallet) == 0 then
  return -1
end
local entry = redis.call("HGET", holds, ARGV[1])
if not entry then
  return 0
end
-- Amounts stay strings of digits: a Lua number prints as 1e+15 when large.
local amount, keyId = string.match(entry, "^(%d+)|(%d+)|")
local posted = ARGV[2]
-- HINCRBY rejects "-0", so a zero is passed as it is.
local function negate(digits)
  if digits == "0" then return "0" end
  return "-" .. digits
end
redis.call("HDEL", holds, ARGV[1])
redis.call("HINCRBY", wallet, "held", negate(amount))
redis.call("HINCRBY", wallet, "balance", negate(posted))
if keyId ~= "0" and redis.call("HEXISTS", wallet, "k:" .. keyId .. ":limit") == 1 then
  redis.call("HINCRBY", wallet, "k:" .. keyId .. ":held", negate(amount))
  redis.call("HINCRBY", wallet, "k:" .. keyId .. ":used", posted)
end
return 1
