--[[
  The reconciler's check of a loaded wallet against Postgres's version of it. A wallet
  behind Postgres is waiting for a change's update; one still at the same version on a
  later pass, at least ARGV[3] ms later, lost it (its process died between the commit and
  Redis, or Redis failed then): the wallet is dropped, and its next use loads it again
  from Postgres. (A drop forgets reservations not yet in Postgres, as a flush does, so
  it waits well past the time an update takes.)

  KEYS[1] wallet hash, KEYS[2] holds hash, KEYS[3] set of applied versions,
  KEYS[4] set of loading tokens (same hash tag {u:<id>}): a load still under way read
  Postgres before the drop, maybe before changes the dropped wallet had taken, so it
  must read again
  ARGV[1] users.wallet_version in Postgres
  ARGV[2] now in milliseconds, ARGV[3] how long a wallet stays behind before it is dropped

  Returns 0 in step (or not loaded), 1 behind (noted), 2 dropped to be loaded again
]]
local wallet = KEYS[1]
if redis.call("EXISTS", wallet) == 0 then
  return 0
end
local loaded = redis.call("HGET", wallet, "ver") or "0"
if tonumber(loaded) >= tonumber(ARGV[1]) then
  redis.call("HDEL", wallet, "behind")
  return 0
end
local behind = redis.call("HGET", wallet, "behind")
if behind then
  local since, at = string.match(behind, "^(%d+)|(%d+)$")
  if since == loaded then
    if tonumber(ARGV[2]) - tonumber(at) >= tonumber(ARGV[3]) then
      redis.call("DEL", wallet, KEYS[2], KEYS[3], KEYS[4])
      return 2
    end
    return 1
  end
end
redis.call("HSET", wallet, "behind", loaded .. "|" .. ARGV[2])
return 1
