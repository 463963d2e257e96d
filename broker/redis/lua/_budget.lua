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
                refusal (epoch ms), "t:<sid>" total spend since the session was first seen,
                "g:<sid>" the session's group (parent budget), absent when it has none
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
  local b = rcall('HMGET', k.sx, 'h:' .. sid, 'w:' .. sid, 'd:' .. sid, 'g:' .. sid)
  local held = math.max(0, tonumber(b[1]) or 0)
  return { id = sid, used = (tonumber(a[1]) or 0) + held, first = tonumber(a[2]) or now,
           weight = tonumber(b[2]) or 1, denied = tonumber(b[3]), group = b[4] or '' }
end

-- See core/groups.ts groupUsages: members of one group take part as one participant.
local function participantKey(s)
  if s.group ~= '' then return 'g:' .. s.group end
  return 's:' .. s.id
end

local function mergeUsage(into, m)
  into.weight = math.max(into.weight, m.weight)
  into.used = into.used + m.used
  into.first = math.min(into.first, m.first)
  if m.denied and (not into.denied or m.denied > into.denied) then into.denied = m.denied end
end

local function groupUsages(me, list)
  local mine = participantKey(me)
  local order, byKey = {}, {}
  for _, o in ipairs(list) do
    local key = participantKey(o)
    if key == mine then
      mergeUsage(me, o)
    elseif byKey[key] then
      mergeUsage(byKey[key], o)
    else
      byKey[key] = o
      table.insert(order, o)
    end
  end
  return me, order
end

-- See core/pacing.ts: the window is spent no faster than it refills, plus a burst.
local function paceBurst(w, pace)
  return math.max(math.ceil(w.limit * pace.burstFraction), pace.burstMin)
end

local function paceAllowance(w, now, pace)
  local burst = paceBurst(w, pace)
  if burst >= w.limit then return w.limit end
  local length = math.max(1, w.reset - w.start)
  local elapsed = math.min(length, math.max(0, now - w.start))
  return math.min(w.limit, burst + (w.limit * elapsed) / length)
end

local function paceTimeFor(w, target, now, pace)
  local burst = paceBurst(w, pace)
  if target <= burst then return now end
  if target > w.limit then return w.reset end
  local length = math.max(1, w.reset - w.start)
  return math.max(now, w.start + math.ceil(((target - burst) * length) / w.limit))
end

-- Returns admitted, retryAt, earliestAt.
local function paceCheck(w, now, cost, used, surplus, pace)
  if paceBurst(w, pace) >= w.limit then return true, now, now end
  local spent = w.limit - w.remaining
  local paced = paceAllowance(w, now, pace) - spent - w.reserved
  local keepAll = 0
  if pace.keepFraction > 0 then keepAll = math.max(1, math.ceil(w.limit * pace.keepFraction)) end
  local keep = 0
  if surplus or used >= keepAll then keep = keepAll end
  if paced - keep >= cost then return true, now, now end
  return false, paceTimeFor(w, spent + w.reserved + keep + cost, now, pace),
    paceTimeFor(w, spent + keep + cost, now, pace)
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
