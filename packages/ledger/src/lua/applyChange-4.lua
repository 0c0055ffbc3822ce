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
  ARGV[1] number of holds to close n, then n hold ids
  then the money moves, four values each: the version of the change that made it, the
  balance delta (signed quota), the key id ("0": none) and its used-budget delta (signed).
  Each version is one move: a post of several holds in one transaction gives each its
  own version, so a repeat of one hold's post (a retry, the reconciler) is complete.

  Returns
   1  at least one move applied
   0  every move was already in the wallet; the holds are closed
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

local closeCount = tonumber(ARGV[1])
for i = 2, 1 + closeCount do
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

local loaded = tonumber(redis.call("HGET", wallet, "ver") or "0")
local moved = 0
for i = 2 + closeCount, #ARGV, 4 do
  local version = ARGV[i]
  if tonumber(version) > loaded and redis.call("SISMEMBER", applied, version) == 0 then
    redis.call("SADD", applied, version)
    redis.call("HINCRBY", wallet, "balance", ARGV[i + 1])
    local used = "k:" .. ARGV[i + 2] .. ":used"
    if ARGV[i + 2] ~= "0" and redis.call("HEXISTS", wallet, used) == 1 then
      redis.call("HINCRBY", wallet, used, ARGV[i + 3])
    end
    moved = 1
  end
end
if moved == 1 then
  local nextVersion = loaded + 1
  while redis.call("SREM", applied, string.format("%d", nextVersion)) == 1 do
    nextVersion = nextVersion + 1
  end
  redis.call("HSET", wallet, "ver", string.format("%d", nextVersion - 1))
end
return moved
