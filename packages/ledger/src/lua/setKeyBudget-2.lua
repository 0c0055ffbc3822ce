--[[
  Tells a loaded wallet a key's budget after Postgres committed it (a key created, or its
  limit changed). An unloaded wallet is left alone: its next load reads the committed
  figures, and loads already reading Postgres are told to read again.

  KEYS[1] wallet hash, KEYS[2] set of loading tokens (same hash tag {u:<id>})
  ARGV[1] key id, ARGV[2] limit (-1 = no budget), ARGV[3] used (quota, from Postgres)

  Returns 1 when applied, -1 when the wallet is not loaded.
]]
local wallet = KEYS[1]
if redis.call("EXISTS", wallet) == 0 then
  redis.call("DEL", KEYS[2])
  return -1
end
local prefix = "k:" .. ARGV[1] .. ":"
redis.call("HSET", wallet, prefix .. "limit", ARGV[2])
redis.call("HSETNX", wallet, prefix .. "used", ARGV[3])
redis.call("HSETNX", wallet, prefix .. "held", "0")
return 1
