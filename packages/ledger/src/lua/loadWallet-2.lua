--[[
  Rebuilds a wallet from Postgres figures when Redis has none (first use, or after a
  flush). If another process loaded it first, nothing is overwritten.

  KEYS[1] wallet hash, KEYS[2] holds hash (same hash tag {u:<id>})
  ARGV[1] balance (quota)
  ARGV[2] number of keys n, then n triples: key id, limit (-1 = no budget), used
  then the open holds as quadruples: hold id, amount, key id ("0" for none), created ms

  Returns 1 when loaded, 0 when the wallet was already there.
]]
local wallet = KEYS[1]
local holds = KEYS[2]
if redis.call("EXISTS", wallet) == 1 then
  return 0
end
redis.call("DEL", holds)
local keyCount = tonumber(ARGV[2])
local fields = { "balance", ARGV[1], "held", "0" }
local i = 3
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
