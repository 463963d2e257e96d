--[[
  Shared helpers of the budget scripts, pulled in with `--- @include "_budget"`.

  Mirrors broker/budget/core/window.ts (window roll and observation merge) and
  broker/budget/core/admission.ts (claims); test/integration/broker/budget/conformance.redis.test.ts
  runs both on the same states. Change them together.

  Every budget script takes the same five keys of one resource, all under one hash tag
  `{<prefix>:budget}` so a Redis Cluster keeps them in one slot:
    win   HASH  limit, remaining, reset (epoch ms), start (epoch ms), est ("1" = our guess), reserved
    resv  ZSET  "<admissionId>|<sessionId>|<cost>" scored by expiry (epoch ms)
    seen  ZSET  sessionId scored by its last request (epoch ms)
    sw    HASH  per window: "u:<sid>" settled spend, "f:<sid>" first request; deleted on a new window
    sx    HASH  across windows: "h:<sid>" in-flight reserved, "w:<sid>" weight, "d:<sid>" last
                refusal (epoch ms), "t:<sid>" total spend since the session was first seen
  and the same leading arguments:
    ARGV[1] now (epoch ms; "0" = use Redis TIME, so brokers never disagree about time)
    ARGV[2] default limit (before GitHub has answered)
    ARGV[3] window length ms
    ARGV[4] reset margin ms
    ARGV[5] pub/sub channel for "budget freed" wake-ups
    ARGV[6] resource name (the message published)
]]
local rcall = redis.call
local RESET_TOLERANCE_MS = 1000

--- @include "_now"
local budgetNow = scriptNow

local function budgetKeys()
  return { win = KEYS[1], resv = KEYS[2], seen = KEYS[3], sw = KEYS[4], sx = KEYS[5] }
end

local function budgetCommon()
  return {
    now = budgetNow(ARGV[1]),
    defaultLimit = tonumber(ARGV[2]),
    windowMs = tonumber(ARGV[3]),
    marginMs = tonumber(ARGV[4]),
    channel = ARGV[5],
    resource = ARGV[6],
  }
end

-- Loads the window: created from the defaults on first use, rolled (refilled, spend forgotten)
-- when its reset passed by the margin. Returns the window and whether it rolled.
local function loadWindow(k, c)
  local v = rcall('HMGET', k.win, 'limit', 'remaining', 'reset', 'start', 'est', 'reserved')
  if not v[1] then
    return { limit = c.defaultLimit, remaining = c.defaultLimit, reset = c.now + c.windowMs,
             start = c.now, est = true, reserved = 0 }, false
  end
  local w = { limit = tonumber(v[1]), remaining = tonumber(v[2]), reset = tonumber(v[3]),
              start = tonumber(v[4]), est = v[5] == '1', reserved = tonumber(v[6]) or 0 }
  if c.now >= w.reset + c.marginMs then
    w.remaining = w.limit
    w.reset = c.now + c.windowMs
    w.start = c.now
    w.est = true
    rcall('DEL', k.sw)
    return w, true
  end
  return w, false
end

local function saveWindow(k, w)
  rcall('HSET', k.win, 'limit', w.limit, 'remaining', w.remaining, 'reset', w.reset,
        'start', w.start, 'est', w.est and '1' or '0', 'reserved', w.reserved)
end

local function addHeld(k, sid, delta)
  local held = tonumber(rcall('HINCRBYFLOAT', k.sx, 'h:' .. sid, delta))
  if held <= 0 then rcall('HDEL', k.sx, 'h:' .. sid) end
end

-- Frees reservations whose broker never settled them (crashed, or lost the answer).
local function purgeReservations(k, w, now)
  local expired = rcall('ZRANGEBYSCORE', k.resv, '-inf', now)
  if #expired == 0 then return 0 end
  for _, member in ipairs(expired) do
    local sid, cost = string.match(member, '^[^|]*|(.*)|([^|]*)$')
    cost = tonumber(cost) or 0
    w.reserved = math.max(0, w.reserved - cost)
    if sid then addHeld(k, sid, -cost) end
  end
  rcall('ZREMRANGEBYSCORE', k.resv, '-inf', now)
  return #expired
end

-- GitHub's report wins; see core/window.ts mergeObservation. Returns newWindow, adopted.
local function mergeObservation(k, w, c, limit, remaining, reset)
  local function adopt(r)
    w.limit = limit
    w.remaining = r
    w.reset = reset
    w.start = reset - c.windowMs
    w.est = false
  end
  local delta = reset - w.reset
  if math.abs(delta) <= RESET_TOLERANCE_MS then
    if w.est then adopt(remaining) else adopt(math.min(w.remaining, remaining)) end
    return false, true
  end
  if delta > 0 then
    local newWindow = not w.est
    adopt(remaining)
    if newWindow then rcall('DEL', k.sw) end
    return newWindow, true
  end
  if w.est and reset > c.now then
    adopt(remaining)
    return false, true
  end
  return false, false
end

-- Forgets sessions that have not asked for anything within activeMs.
local function pruneInactive(k, now, activeMs)
  rcall('ZREMRANGEBYSCORE', k.seen, '-inf', '(' .. (now - activeMs))
end

local function sessionUsage(k, sid, now)
  local a = rcall('HMGET', k.sw, 'u:' .. sid, 'f:' .. sid)
  local b = rcall('HMGET', k.sx, 'h:' .. sid, 'w:' .. sid, 'd:' .. sid)
  local held = math.max(0, tonumber(b[1]) or 0)
  return { id = sid, used = (tonumber(a[1]) or 0) + held, first = tonumber(a[2]) or now,
           weight = tonumber(b[2]) or 1, denied = tonumber(b[3]) }
end

-- See core/admission.ts claimOf.
local function claimOf(s, share, w, now, p)
  local gap = share - s.used
  if gap <= 0 then return 0 end
  if p.headroom <= 0 then return gap end
  if s.denied and now - s.denied <= p.hungryMs then return gap end
  local elapsed = math.max(now - math.max(s.first, w.start), p.minRateElapsedMs)
  local timeLeft = math.max(0, w.reset - now)
  local projected = math.ceil((p.headroom * s.used * timeLeft) / elapsed)
  return math.min(gap, math.max(p.floor, projected))
end

local function num(x)
  return tostring(x)
end
