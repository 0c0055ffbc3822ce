--[[
  Applies a change Postgres has already committed to a loaded wallet: a credit to the
  balance, or a key's budget being set. An unloaded wallet is left alone: its next
  rebuild reads the committed figures.

  KEYS[1] wallet hash (hash tag {u:<id>})
  ARGV[1] "credit", "refund" or "budget"
  credit: ARGV[2] delta (quota)
  refund: ARGV[2] delta (quota) back to the balance, ARGV[3] key id ("0": none) whose
          used budget it leaves
  budget: ARGV[2] key id, ARGV[3] limit (-1 = no budget), ARGV[4] used (quota, from Postgres)

  Returns 1 when applied, -1 when the wallet is not loaded.
]]
local wallet = KEYS[1]
if redis.call("EXISTS", wallet) == 0 then
  return -1
end
if ARGV[1] == "credit" then
  redis.call("HINCRBY", wallet, "balance", ARGV[2])
  return 1
end
if ARGV[1] == "refund" then
  redis.call("HINCRBY", wallet, "balance", ARGV[2])
  local used = "k:" .. ARGV[3] .. ":used"
  if ARGV[3] ~= "0" and redis.call("HEXISTS", wallet, used) == 1 then
    redis.call("HINCRBY", wallet, used, "-" .. ARGV[2])
  end
  return 1
end
local prefix = "k:" .. ARGV[2] .. ":"
redis.call("HSET", wallet, prefix .. "limit", ARGV[3])
redis.call("HSETNX", wallet, prefix .. "used", ARGV[4])
redis.call("HSETNX", wallet, prefix .. "held", "0")
return 1
