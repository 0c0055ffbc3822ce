--[[
  Rebuilds a wallet from Postgres figures when Redis has none (first use, or after a
  flush). If another process loaded it first, nothing is overwritten. Each load gets a
  new generation: a hold admitted under another generation is checked again when it is
  confirmed (confirmHold), because this load may have missed it or counted it unchecked.

  A load is written only if its token is still there: it was registered before the
  loader read Postgres, and a flush deletes it, as does any committed change that found
  no wallet to update (applyChange): a snapshot read before either could miss holds
  confirmed against the deleted wallet, or that change.

  The snapshot's version (users.wallet_version) is kept as `ver`: applyChange takes the
  changes above it only.

  KEYS[1] wallet hash, KEYS[2] holds hash, KEYS[3] set of loading tokens,
  KEYS[4] set of applied versions (same hash tag {u:<id>})
  ARGV[1] the loader's token, also the new generation
  ARGV[2] the snapshot's wallet version
  ARGV[3] balance (quota)
  ARGV[4] number of keys n, then n triples: key id, limit (-1 = no budget), used
  then the open holds as quadruples: hold id, amount, key id ("0" for none), created ms

  Returns
   1  loaded
   0  the wallet was already there (nothing written)
  -1  the token is gone (Redis was flushed after the snapshot began): read Postgres again
]]
local wallet = KEYS[1]
local holds = KEYS[2]
if redis.call("SREM", KEYS[3], ARGV[1]) == 0 then
  return -1
end
if redis.call("EXISTS", wallet) == 1 then
  return 0
end
redis.call("DEL", holds, KEYS[4])
local keyCount = tonumber(ARGV[4])
local fields = { "gen", ARGV[1], "ver", ARGV[2], "balance", ARGV[3], "held", "0" }
local i = 5
for _ = 1, keyCount do
  local keyId = ARGV[i]
  table.insert(fields, "k:" .. keyId .. ":limit")
  table.insert(fields, ARGV[i + 1])
  table.insert(fields, "k:" .. keyId .. ":used")
  table.insert(fields, ARGV[i + 2])
  table.insert(fields, "k:" .. keyId .. ":held")
  table.insert(fields, "0")
  i = i + 3
end
redis.call("HSET", wallet, unpack(fields))
-- Sums go through HINCRBY on digit strings: a Lua number prints as 1e+15 when large.
while i <= #ARGV do
  local holdId, amount, keyId = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  redis.call("HSET", holds, holdId, amount .. "|" .. keyId .. "|" .. ARGV[i + 3])
  redis.call("HINCRBY", wallet, "held", amount)
  if keyId ~= "0" and redis.call("HEXISTS", wallet, "k:" .. keyId .. ":limit") == 1 then
    redis.call("HINCRBY", wallet, "k:" .. keyId .. ":held", amount)
  end
  i = i + 4
end
return 1
