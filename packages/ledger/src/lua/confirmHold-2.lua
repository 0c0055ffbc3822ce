--[[
  Confirms a hold that Postgres has just recorded. Normally the wallet is the one that
  admitted it (same generation) and the hold is there: nothing to do. If the wallet was
  rebuilt from Postgres since the admission (Redis was flushed), the new wallet either
  missed the hold (it was not committed yet) or loaded it without a funds check (it was
  committed but not confirmed). Then the hold is counted and the wallet and key checked
  again with it: if they no longer cover every hold they count, this hold is taken out
  and refused, and the caller voids it in Postgres. So a flush can refuse a hold late,
  but never let holds past the balance or the key budget.

  KEYS[1] wallet hash, KEYS[2] holds hash (same hash tag {u:<id>})
  ARGV[1] hold id, ARGV[2] amount, ARGV[3] key id or "0", ARGV[4] now in milliseconds
  ARGV[5] the wallet generation admitHold answered

  Returns { code, available }
   1  confirmed: the wallet that admitted the hold still holds it
   2  confirmed after a rebuild: the hold fits the rebuilt wallet and is counted
  -1  the wallet is not loaded: load it from Postgres and call again
  -2  refused after a rebuild: the wallet does not cover it; available without it
  -3  refused after a rebuild: the key's budget does not cover it; available without it
]]
local wallet = KEYS[1]
local holds = KEYS[2]
if redis.call("EXISTS", wallet) == 0 then
  return { -1, 0 }
end
local holdId, amount, keyId = ARGV[1], ARGV[2], ARGV[3]
local present = redis.call("HEXISTS", holds, holdId) == 1
local generation = redis.call("HGET", wallet, "gen") or ""
if present and generation == ARGV[5] then
  return { 1, 0 }
end

-- HINCRBY rejects "-0", so a zero is passed as it is.
local function negate(digits)
  if digits == "0" then return "0" end
  return "-" .. digits
end
local budgeted = keyId ~= "0" and redis.call("HEXISTS", wallet, "k:" .. keyId .. ":limit") == 1
if not present then
  redis.call("HINCRBY", wallet, "held", amount)
  if budgeted then
    redis.call("HINCRBY", wallet, "k:" .. keyId .. ":held", amount)
  end
  redis.call("HSET", holds, holdId, amount .. "|" .. keyId .. "|" .. ARGV[4])
end
local function refuse(code, available)
  redis.call("HDEL", holds, holdId)
  redis.call("HINCRBY", wallet, "held", negate(amount))
  if budgeted then
    redis.call("HINCRBY", wallet, "k:" .. keyId .. ":held", negate(amount))
  end
  return { code, available + tonumber(amount) }
end

local available = tonumber(redis.call("HGET", wallet, "balance")) - tonumber(redis.call("HGET", wallet, "held"))
if available < 0 then
  return refuse(-2, available)
end
if budgeted then
  local limit = tonumber(redis.call("HGET", wallet, "k:" .. keyId .. ":limit"))
  if limit >= 0 then
    local used = tonumber(redis.call("HGET", wallet, "k:" .. keyId .. ":used"))
    local keyHeld = tonumber(redis.call("HGET", wallet, "k:" .. keyId .. ":held"))
    if limit - used - keyHeld < 0 then
      return refuse(-3, limit - used - keyHeld)
    end
  end
end
return { 2, 0 }
