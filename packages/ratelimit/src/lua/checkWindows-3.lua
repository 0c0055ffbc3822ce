--[[
  Exact sliding-window logs of one subject (an IP, or a key), up to two windows, plus
  an optional block shared by every window of that subject. The request is admitted
  only if the subject is not blocked and every window has room; it is then recorded in
  every window (all or nothing), so a refused request never uses up capacity. When the
  first window refuses and blocking is on, the subject is blocked for the block length.
  One round trip; atomic, so concurrent api processes cannot admit more than the limit.

  Exact: a window holds one entry per admitted request, so the count is the true count
  of the last `window` milliseconds (error bound 0, on the callers' clock). A request
  admitted at time t counts until t + window and no longer: the window is (now - window, now].

  KEYS[1] block: a string holding the Unix ms when the block ends (its TTL is the same)
  KEYS[2] first window: sorted set of admitted requests, score = admission Unix ms
  KEYS[3] second window: likewise
          All three share one hash tag (e.g. `{ip:1.2.3.4}`) so a cluster keeps them in one slot.

  ARGV[1] now, Unix ms (the caller's clock)
  ARGV[2] member: unique id of this request, so two requests in one millisecond both count
  ARGV[3] block length in ms; 0 = this check neither reads nor sets the block
  ARGV[4] limit of the first window (requests per window); 0 = no first window
  ARGV[5] length of the first window in ms
  ARGV[6] limit of the second window; 0 = no second window
  ARGV[7] length of the second window in ms

  Returns { admitted, refusedBy, remaining1, reset1, remaining2, reset2, retryAtMs }
    admitted    1 or 0
    refusedBy   0 admitted, 1 the block, 2 the first window, 3 the second window
    remainingN  room left in window N after this request (0 for an absent window)
    resetN      Unix ms when window N next frees a slot (0 for an absent window)
    retryAtMs   Unix ms from which this request would be admitted (0 when admitted): the
                latest of the block's end and the next free slot of every full window
]]
local now = tonumber(ARGV[1])
local member = ARGV[2]
local blockMs = tonumber(ARGV[3])

-- Trims a window to (now - window, now] and answers its count, or nil when absent.
local function count(key, limit, window)
  if limit <= 0 then return nil end
  redis.call("ZREMRANGEBYSCORE", key, "-inf", now - window)
  return redis.call("ZCARD", key)
end

-- When one more request fits: after the (n - limit + 1)-th oldest entry leaves, which is
-- the oldest one unless the limit was lowered below the count by a configuration change.
local function freeAt(key, n, limit, window)
  local index = 0
  if n >= limit then index = n - limit end
  local entry = redis.call("ZRANGE", key, index, index, "WITHSCORES")
  if entry[2] then return tonumber(entry[2]) + window end
  return now + window
end

local limit1, window1 = tonumber(ARGV[4]), tonumber(ARGV[5])
local limit2, window2 = tonumber(ARGV[6]), tonumber(ARGV[7])
local n1 = count(KEYS[2], limit1, window1)
local n2 = count(KEYS[3], limit2, window2)

local blockedUntil = 0
if blockMs > 0 then
  local value = tonumber(redis.call("GET", KEYS[1]) or "0")
  if value and value > now then blockedUntil = value end
end

local refusedBy = 0
if blockedUntil > 0 then
  refusedBy = 1
elseif n1 and n1 >= limit1 then
  refusedBy = 2
elseif n2 and n2 >= limit2 then
  refusedBy = 3
end

if refusedBy == 0 then
  if n1 then
    redis.call("ZADD", KEYS[2], now, member)
    redis.call("PEXPIRE", KEYS[2], window1)
    n1 = n1 + 1
  end
  if n2 then
    redis.call("ZADD", KEYS[3], now, member)
    redis.call("PEXPIRE", KEYS[3], window2)
    n2 = n2 + 1
  end
elseif refusedBy == 2 and blockMs > 0 then
  blockedUntil = now + blockMs
  redis.call("SET", KEYS[1], blockedUntil, "PX", blockMs)
end

local remaining1, reset1, remaining2, reset2 = 0, 0, 0, 0
local retryAt = blockedUntil
if n1 then
  remaining1 = math.max(limit1 - n1, 0)
  reset1 = freeAt(KEYS[2], n1, limit1, window1)
  if refusedBy ~= 0 and n1 >= limit1 and reset1 > retryAt then retryAt = reset1 end
end
if n2 then
  remaining2 = math.max(limit2 - n2, 0)
  reset2 = freeAt(KEYS[3], n2, limit2, window2)
  if refusedBy ~= 0 and n2 >= limit2 and reset2 > retryAt then retryAt = reset2 end
end
if refusedBy == 0 then retryAt = 0 end

return { refusedBy == 0 and 1 or 0, refusedBy, remaining1, reset1, remaining2, reset2, retryAt }
