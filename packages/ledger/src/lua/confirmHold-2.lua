--[[
  Makes sure a hold that Postgres has just recorded is reserved in Redis. It is
  normally there already (admitHold put it there); it is missing only when Redis was
  flushed and the wallet rebuilt between admission and the Postgres commit, and then
  it is reserved again without a funds check, because the hold is already durable.

  KEYS[1] wallet hash, KEYS[2] holds hash (same hash tag {u:<id>})
  ARGV[1] hold id, ARGV[2] amount, ARGV[3] key id or "0", ARGV[4] now in milliseconds

  Returns
   1  the hold was reserved already
   2  the hold was missing and is reserved now
  -1  the wallet is not loaded; the next rebuild reads the hold from Postgres
]]
local wallet = KEYS[1]
local holds = KEYS[2]
if redis.call("EXISTS", wallet) == 0 then
  return -1
end
if redis.call("HEXISTS", holds, ARGV[1]) == 1 then
  return 1
end
local amount = ARGV[2]
local keyId = ARGV[3]
redis.call("HINCRBY", wallet, "held", amount)
if keyId ~= "0" and redis.call("HEXISTS", wallet, "k:" .. keyId .. ":limit") == 1 then
  redis.call("HINCRBY", wallet, "k:" .. keyId .. ":held", amount)
end
redis.call("HSET", holds, ARGV[1], amount .. "|" .. keyId .. "|" .. ARGV[4])
return 2
