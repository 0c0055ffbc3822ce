--[[
  Exact sliding-window log: admits a request if fewer than `limit` requests were
  admitted in the last `window` milliseconds, and records it. One round trip.

  KEYS[1] sorted set of admitted requests (score = admission time in ms); hash-tag it
          with the limited subject so a cluster keeps it in one slot

  ARGV[1] now in milliseconds (the caller's clock, so all api processes agree on time
          only as well as their clocks do)
  ARGV[2] window length in milliseconds
  ARGV[3] limit (requests per window, > 0)
  ARGV[4] unique id of this request (so two requests in one millisecond both count)

  Returns { admitted (1/0), remaining, resetMs }
  resetMs: when the oldest counted request leaves the window, i.e. when one more
  request will be admitted again (now + window for an empty window).
]]
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])

redis.call("ZREMRANGEBYSCORE", key, "-inf", now - window)
local count = redis.call("ZCARD", key)
local admitted = 0
if count < limit then
  redis.call("ZADD", key, now, ARGV[4])
  count = count + 1
  admitted = 1
end
redis.call("PEXPIRE", key, window)

local oldest = redis.call("ZRANGE", key, 0, 0, "WITHSCORES")
local resetMs = now + window
if oldest[2] then
  resetMs = tonumber(oldest[2]) + window
end
return { admitted, limit - count, resetMs }
