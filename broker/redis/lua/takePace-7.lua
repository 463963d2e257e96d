--[[
  Ask to send one upstream request now, under GitHub's secondary limits
  (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits):
  no global pause in force, no primary bucket known to be empty, the endpoint's points of the
  last minute plus this request's within the per-minute limit, and for content-creating requests
  fewer than the per-minute and per-hour counts. When everything passes the request is recorded
  in every window at once; otherwise nothing is recorded and the time to come back is returned.

  Sliding windows are hashes of buckets (bucket index → points): buckets of minute/60 for points
  and content per minute, buckets of a minute for content per hour (the minute is 60 s unless a
  simulator compresses time). A check counts the current bucket and the 60 before it, so the
  bucket the window's start falls in counts whole and the limit holds in every span of a minute
  (an hour), wherever it starts; counting only 60 buckets would miss the part of the 61st that
  is still inside the span (a burst measured 74 in 60 s against a pace of 72).

  What a job waits for is kept for `ao-broker budget`: a refusal records the job in the waits
  hash (limit, session, endpoint, come-back time, since), a go removes it; a go also stamps the
  endpoint in the endpoints zset, so the views find the endpoints used in the last minute.
  A dry run (ARGV[11] = "1") only answers: it records nothing.

  Input:
    KEYS[1] pause key (string: epoch ms until which all upstream traffic waits)
    KEYS[2] block key of the request's primary resource (string: epoch ms)
    KEYS[3] points window of the endpoint (GraphQL, or one REST route)
    KEYS[4] content-creation window, per minute
    KEYS[5] content-creation window, per hour
    KEYS[6] endpoints zset (endpoint → epoch ms of its last request)
    KEYS[7] waits hash (job id → "code|session|endpoint|until|since")

    ARGV[1] now (epoch ms; "0" = Redis TIME)
    ARGV[2] points of this request (0 = not counted)
    ARGV[3] points allowed per minute on the endpoint
    ARGV[4] how many content-creating requests it counts as ("0" none, "1" one; a merged
            mutation counts each member that creates content)
    ARGV[5] content-creating requests allowed per minute
    ARGV[6] content-creating requests allowed per hour
    ARGV[7] length of a minute, ms (a multiple of 60; 60000 unless time is compressed)
    ARGV[8] endpoint name (for the endpoints zset and the waits hash)
    ARGV[9] job id ("" = do not record the wait)
    ARGV[10] session id
    ARGV[11] "1" for a dry run

  Output: array of strings
    [1] 0 go (recorded), 1 paused, 2 resource blocked, 3 endpoint points, 4 content per minute,
        5 content per hour
    [2] epoch ms to come back (0 when go)   [3] now
    or -1 when an argument is invalid.
]]
--- @include "_now"
local now = scriptNow(ARGV[1])
local points, pointsLimit = tonumber(ARGV[2]), tonumber(ARGV[3])
local creates = tonumber(ARGV[4]) or 0
if creates < 0 or creates ~= math.floor(creates) then return -1 end
local ccMinute, ccHour = tonumber(ARGV[5]), tonumber(ARGV[6])
local minuteMs = tonumber(ARGV[7])
local endpoint, jobId, session = ARGV[8] or '', ARGV[9] or '', ARGV[10] or ''
local dry = ARGV[11] == '1'
if not (points and pointsLimit and ccMinute and ccHour and minuteMs) then return -1 end
if minuteMs < 60 or minuteMs % 60 ~= 0 then return -1 end
local secondMs = minuteMs / 60

local function refuse(code, untilMs)
  if jobId ~= '' and not dry then
    rcall('HSET', KEYS[7], jobId, code .. '|' .. session .. '|' .. endpoint .. '|' .. tostring(untilMs) .. '|' .. tostring(now))
    rcall('PEXPIRE', KEYS[7], 120 * minuteMs)
  end
  return { code, tostring(untilMs), tostring(now) }
end

local pausedUntil = tonumber(rcall('GET', KEYS[1]) or '0') or 0
if pausedUntil > now then return refuse('1', pausedUntil) end
local blockedUntil = tonumber(rcall('GET', KEYS[2]) or '0') or 0
if blockedUntil > now then return refuse('2', blockedUntil) end

-- Returns ok, come-back time. A request larger than the whole limit passes on an empty window,
-- so it is slowed down rather than refused forever.
local function check(key, bucketMs, buckets, limit, amount)
  local current = math.floor(now / bucketMs)
  local oldest = current - buckets
  local fields = rcall('HGETALL', key)
  local sum, live = 0, {}
  for i = 1, #fields, 2 do
    local index, value = tonumber(fields[i]), tonumber(fields[i + 1]) or 0
    if index < oldest then
      if not dry then rcall('HDEL', key, fields[i]) end
    else
      sum = sum + value
      table.insert(live, { index, value })
    end
  end
  if sum + amount <= limit or sum == 0 then return true, 0 end
  table.sort(live, function(a, b) return a[1] < b[1] end)
  local excess = sum + amount - limit
  for _, bucket in ipairs(live) do
    excess = excess - bucket[2]
    if excess <= 0 then return false, (bucket[1] + buckets + 1) * bucketMs end
  end
  return false, (current + buckets + 1) * bucketMs
end

local function record(key, bucketMs, buckets, amount)
  rcall('HINCRBY', key, math.floor(now / bucketMs), amount)
  rcall('PEXPIRE', key, (buckets + 2) * bucketMs)
end

local code, untilMs = '0', 0
if points > 0 then
  local ok, t = check(KEYS[3], secondMs, 60, pointsLimit, points)
  if not ok then code, untilMs = '3', t end
end
if creates > 0 then
  local ok1, t1 = check(KEYS[4], secondMs, 60, ccMinute, creates)
  local ok2, t2 = check(KEYS[5], minuteMs, 60, ccHour, creates)
  if not ok1 and t1 > untilMs then code, untilMs = '4', t1 end
  if not ok2 and t2 > untilMs then code, untilMs = '5', t2 end
end
if code ~= '0' then return refuse(code, untilMs) end
if dry then return { '0', '0', tostring(now) } end

if points > 0 then record(KEYS[3], secondMs, 60, points) end
if creates > 0 then
  record(KEYS[4], secondMs, 60, creates)
  record(KEYS[5], minuteMs, 60, creates)
end
if endpoint ~= '' then
  rcall('ZADD', KEYS[6], now, endpoint)
  rcall('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - 2 * minuteMs)
  rcall('PEXPIRE', KEYS[6], 2 * minuteMs)
end
if jobId ~= '' then rcall('HDEL', KEYS[7], jobId) end
return { '0', '0', tostring(now) }
