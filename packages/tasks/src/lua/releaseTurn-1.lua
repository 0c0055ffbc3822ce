--[[
  Ends a copy's turn on an Idempotency-Key: deletes the turn only if it is still the
  caller's (it may have expired and been taken by another copy meanwhile).

  KEYS[1] the turn key
  ARGV[1] the caller's token

  Returns 1 when deleted, 0 when the turn was not the caller's.
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
