--[[
  Admits a hold: reserves `amount` against the wallet's available funds
  (balance - held) and, when the hold names a key with a budget, against the key's
  available budget (limit - used - held), atomically, or reserves nothing.

  Both keys share the owner's hash tag {u:<id>}, so the script touches one slot.

  KEYS[1] wallet hash: balance, held, k:<keyId>:limit (-1 = no budget), k:<keyId>:used, k:<keyId>:held
  KEYS[2] holds hash: <holdId> -> "<amount>|<keyId>|<createdMs>"

  ARGV[1] hold id
  ARGV[2] amount (quota, > 0)
  ARGV[3] key id, or "0" for a hold that no key pays for
  ARGV[4] now in milliseconds (the caller's clock; kept for the reconciler)

  Returns { code, available, generation }
   1  admitted; available is what the wallet has left after it; generation is the
      wallet's (see loadWallet), for confirmHold
   0  a hold with this id is already open (nothing changed)
  -1  the wallet is not loaded: rebuild it from Postgres and call again
  -2  insufficient funds in the wallet; available is the wallet's available amount
  -3  the key's budget is too small; available is the key's available budget
  -4  the key is not loaded into the wallet: load it and call again
]]
local wallet = KEYS[1]
local holds = KEYS[2]
local holdId = ARGV[1]
local amount = tonumber(ARGV[2])
local keyId = ARGV[3]

if redis.call("EXISTS", wallet) == 0 then
  return { -1, 0 }
end
if redis.call("HEXISTS", holds, holdId) == 1 then
  return { 0, 0 }
end

local balance = tonumber(redis.call("HGET", wallet, "balance"))
local held = tonumber(redis.call("HGET", wallet, "held"))
local available = balance - held
if available < amount then
  return { -2, available }
end

if keyId ~= "0" then
  local limit = redis.call("HGET", wallet, "k:" .. keyId .. ":limit")
  if not limit then
    return { -4, 0 }
  end
  limit = tonumber(limit)
  if limit >= 0 then
    local used = tonumber(redis.call("HGET", wallet, "k:" .. keyId .. ":used"))
    local keyHeld = tonumber(redis.call("HGET", wallet, "k:" .. keyId .. ":held"))
    local keyAvailable = limit - used - keyHeld
    if keyAvailable < amount then
      return { -3, keyAvailable }
    end
  end
  redis.call("HINCRBY", wallet, "k:" .. keyId .. ":held", ARGV[2])
end

-- Redis gets the caller's digits, never a Lua number, which prints as 1e+15 when large.
redis.call("HINCRBY", wallet, "held", ARGV[2])
redis.call("HSET", holds, holdId, ARGV[2] .. "|" .. keyId .. "|" .. ARGV[4])
return { 1, available - amount, redis.call("HGET", wallet, "gen") or "" }
