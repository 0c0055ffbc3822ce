--[[
  Confirms a hold that Postgres has just recorded. Normally the wallet is the one that
  admitted it (same generation) and the hold is there: nothing to do. If the wallet was
  rebuilt from Postgres since the admission (Redis was flushed), the new wallet either
  missed the hold (it was not committed yet) or loaded it without a funds check (it was
  committed but not confirmed). Then the hold is counted and the wallet and key checked
  again with it: if they no longer cover every hold they count, this hold is taken out
  and refused, and the caller voids it in Postgres. So a flush can refuse a hold late,
  but never let holds past the balance or the key budget.

  A hold missing from a rebuilt wallet may also have been settled already; the script
  then asks (-5) for its state in Postgres and is called again with it:
  - pending: counted and checked as above;
  - voided: nothing to count;
  - posted at a version the wallet has (loaded or applied): its charge is in the
    balance; the wallet is checked with it, and nothing is counted;
  - posted at a version the wallet lacks: counted as a hold until that post's update
    arrives and closes it.

  KEYS[1] wallet hash, KEYS[2] holds hash, KEYS[3] set of applied versions
  (same hash tag {u:<id>})
  ARGV[1] hold id, ARGV[2] amount, ARGV[3] key id or "0", ARGV[4] now in milliseconds
  ARGV[5] the wallet generation admitHold answered
  ARGV[6] the hold's state in Postgres: "" (not read), "pending", "posted" or "voided"
  ARGV[7] for "posted": the version of the post ("0" when unknown)

  Returns { code, available }
   1  confirmed: the wallet that admitted the hold still holds it, or nothing to count
   2  confirmed after a rebuild: the hold fits the rebuilt wallet
  -1  the wallet is not loaded: load it from Postgres and call again
  -2  refused after a rebuild: the wallet does not cover it; available without it
  -3  refused after a rebuild: the key's budget does not cover it; available without it
  -5  the hold is missing from a rebuilt wallet: call again with its Postgres state
]]
local wallet = KEYS[1]
local holds = KEYS[2]
if redis.call("EXISTS", wallet) == 0 then
  return { -1, 0 }
end
local holdId, amount, keyId, state = ARGV[1], ARGV[2], ARGV[3], ARGV[6]
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
local counted = present
if not present then
  if state == "" then
    return { -5, 0 }
  end
  if state == "voided" then
    return { 1, 0 }
  end
  local charged = false
  if state == "posted" then
    local version = tonumber(ARGV[7])
    charged = version == 0
      or version <= tonumber(redis.call("HGET", wallet, "ver") or "0")
      or redis.call("SISMEMBER", KEYS[3], ARGV[7]) == 1
  end
  if not charged then
    redis.call("HINCRBY", wallet, "held", amount)
    if budgeted then
      redis.call("HINCRBY", wallet, "k:" .. keyId .. ":held", amount)
    end
    redis.call("HSET", holds, holdId, amount .. "|" .. keyId .. "|" .. ARGV[4])
    counted = true
  end
end
local function refuse(code, available)
  if not counted then
    return { code, available }
  end
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
