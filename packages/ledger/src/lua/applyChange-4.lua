--[[
  Applies a change Postgres has committed to a loaded wallet: holds that closed (posted,
  voided, or a reservation given back), and the balance and key budgets it moved.

  Wallets are versioned. Every transaction that moves a balance or a used budget bumps
  the owner's users.wallet_version; a wallet is loaded from a snapshot at version `ver`
  and then takes each change above `ver` exactly once, in any order: `applied` holds the
  versions above `ver` taken so far, and `ver` advances over the ones that join up. A
  change at or below `ver` is already in the snapshot, or was taken: only its holds are
  closed. So a flush, a rebuild or a repeated update can neither lose nor double a change.

  KEYS[1] wallet hash, KEYS[2] holds hash, KEYS[3] set of applied versions above `ver`,
  KEYS[4] set of loading tokens (same hash tag {u:<id>})
  ARGV[1] the change's version ("0": it moves no money, e.g. a void or a release)
  ARGV[2] number of holds to close n, then n hold ids
  then the balance delta (signed quota), then pairs: key id, used-budget delta (signed)

  Returns
   1  applied
   0  its money was already in the wallet; its holds are closed
  -1  the wallet is not loaded: loads in progress are told to read Postgres again, so
      none writes a snapshot taken before this commit
]]
local wallet, holds, applied, loading = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call("EXISTS", wallet) == 0 then
  redis.call("DEL", loading)
  return -1
end

-- HINCRBY rejects "-0", so a zero is passed as it is.
local function negate(digits)
  if digits == "0" then return "0" end
  return "-" .. digits
end

local closeCount = tonumber(ARGV[2])
for i = 3, 2 + closeCount do
  local entry = redis.call("HGET", holds, ARGV[i])
  if entry then
    -- Amounts stay strings of digits: a Lua number prints as 1e+15 when large.
    local amount, keyId = string.match(entry, "^(%d+)|(%d+)|")
    redis.call("HDEL", holds, ARGV[i])
    redis.call("HINCRBY", wallet, "held", negate(amount))
    if keyId ~= "0" and redis.call("HEXISTS", wallet, "k:" .. keyId .. ":limit") == 1 then
      redis.call("HINCRBY", wallet, "k:" .. keyId .. ":held", negate(amount))
    end
  end
end

local version = tonumber(ARGV[1])
local loaded = tonumber(redis.call("HGET", wallet, "ver") or "0")
if version <= loaded or redis.call("SISMEMBER", applied, ARGV[1]) == 1 then
  return 0
end
redis.call("SADD", applied, ARGV[1])
local nextVersion = loaded + 1
while redis.call("SREM", applied, string.format("%d", nextVersion)) == 1 do
  nextVersion = nextVersion + 1
end
redis.call("HSET", wallet, "ver", string.format("%d", nextVersion - 1))

local i = 3 + closeCount
redis.call("HINCRBY", wallet, "balance", ARGV[i])
i = i + 1
while i < #ARGV do
  local used = "k:" .. ARGV[i] .. ":used"
  if redis.call("HEXISTS", wallet, used) == 1 then
    redis.call("HINCRBY", wallet, used, ARGV[i + 1])
  end
  i = i + 2
end
return 1
