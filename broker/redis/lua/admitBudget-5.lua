--[[
  Admit a request against the global budget of one resource and the session's max-min fair
  share, reserving its estimated cost until it is settled (or the reservation expires).
  The arithmetic is broker/budget/core/admission.ts decideAdmission, step for step.

  Input:
    KEYS[1] win   KEYS[2] resv   KEYS[3] seen   KEYS[4] sw   KEYS[5] sx   (see _budget.lua)

    ARGV[1..6]  common budget arguments (see _budget.lua)
    ARGV[7]  session id
    ARGV[8]  session weight (> 0)
    ARGV[9]  estimated cost (integer > 0)
    ARGV[10] reserve fraction the class must leave untouched
    ARGV[11] "1" when the class is exempt from fair share (lifecycle)
    ARGV[12] admission id (unique)
    ARGV[13] reservation ttl ms
    ARGV[14] active ms (sessions seen within this long share the pool)
    ARGV[15] hungry ms (sessions refused within this long claim their whole share)
    ARGV[16] claim headroom (0 = claims are whole unused shares)
    ARGV[17] claim floor as a fraction of the limit
    ARGV[18] minimum rate elapsed ms
    ARGV[19] the session's group (parent budget; "" = none): one participant per group
    ARGV[20] pace burst fraction   ARGV[21] pace keep fraction   ARGV[22] pace burst minimum
             (a burst >= the limit = no pacing; see core/pacing.ts)

  Output: array of strings
    [1] admitted "1"/"0"  [2] reason 1 exempt, 2 within-share, 3 surplus, 4 budget, 5 fair-share,
    6 pace  [3] now  [4] retryAt (epoch ms; for fair-share refusals = now)  [5] limit
    [6] remaining  [7] reset  [8] reserved  [9] available  [10] pool  [11] share  [12] claims
    [13] participant used (the group's when grouped)  [14] earliestAt: the soonest it could pass
    even if every reservation were released (core/admission.ts)
    or -1 when an argument is invalid.
]]
--- @include "_budget"

local k = budgetKeys()
local c = budgetCommon()
local sid = ARGV[7]
local weight = tonumber(ARGV[8])
local cost = tonumber(ARGV[9])
local fraction = tonumber(ARGV[10])
local exempt = ARGV[11] == '1'
local admissionId = ARGV[12]
local ttl = tonumber(ARGV[13])
local activeMs = tonumber(ARGV[14])
local p = { hungryMs = tonumber(ARGV[15]), headroom = tonumber(ARGV[16]),
            minRateElapsedMs = tonumber(ARGV[18]) }
local group = ARGV[19] or ''
local pace = { burstFraction = tonumber(ARGV[20] or '1'), keepFraction = tonumber(ARGV[21] or '0'),
               burstMin = tonumber(ARGV[22] or '0') }
if not (pace.burstFraction and pace.burstFraction >= 0 and pace.keepFraction and pace.keepFraction >= 0
        and pace.burstMin and pace.burstMin >= 0) then return -1 end
if not (c.now and c.defaultLimit and c.windowMs and c.marginMs and weight and weight > 0 and cost
        and cost > 0 and fraction and ttl and activeMs and p.hungryMs and p.headroom
        and p.minRateElapsedMs and tonumber(ARGV[17])) or sid == '' or admissionId == '' then
  return -1
end
local now = c.now

local w, rolled = loadWindow(k, c)
local purged = purgeReservations(k, w, now)
p.floor = math.max(1, math.ceil(w.limit * tonumber(ARGV[17])))

pruneInactive(k, now, activeMs)
rcall('ZADD', k.seen, now, sid)
rcall('HSETNX', k.sw, 'f:' .. sid, now)
rcall('HSET', k.sx, 'w:' .. sid, weight)
if group ~= '' then rcall('HSET', k.sx, 'g:' .. sid, group) else rcall('HDEL', k.sx, 'g:' .. sid) end

local me = sessionUsage(k, sid, now)
local others = {}
for _, id in ipairs(rcall('ZRANGE', k.seen, 0, -1)) do
  if id ~= sid then table.insert(others, sessionUsage(k, id, now)) end
end
me, others = groupUsages(me, others)

local floorReserve = math.floor(w.limit * fraction)
local available = w.remaining - w.reserved - floorReserve
local admitted, reason = false, 4
local pool, share, claims = 0, 0, 0
local retryAt, earliestAt = now, now
if available < cost then
  retryAt = w.reset
  if w.remaining - floorReserve < cost then earliestAt = w.reset end
else
  if exempt then
    admitted, reason = true, 1
  else
    local weights, used = me.weight, me.used
    for _, o in ipairs(others) do
      weights = weights + o.weight
      used = used + o.used
    end
    pool = available + used
    share = (pool * me.weight) / weights
    if me.used + cost <= share then
      admitted, reason = true, 2
    else
      for _, o in ipairs(others) do
        claims = claims + claimOf(o, (pool * o.weight) / weights, w, now, p)
      end
      if available - claims >= cost then admitted, reason = true, 3 else reason = 5 end
    end
    if admitted then
      local ok, at, earliest = paceCheck(w, now, cost, me.used, reason == 3, pace)
      if not ok then admitted, reason, retryAt, earliestAt = false, 6, at, earliest end
    end
  end
end

if admitted then
  rcall('ZADD', k.resv, now + ttl, admissionId .. '|' .. sid .. '|' .. cost)
  w.reserved = w.reserved + cost
  addHeld(k, sid, cost)
else
  rcall('HSET', k.sx, 'd:' .. sid, now)
  if reason == 4 then
    retryAt = w.reset + c.marginMs
    if earliestAt > now then earliestAt = w.reset + c.marginMs end
  end
end
saveWindow(k, w)
if rolled or purged > 0 then rcall('PUBLISH', c.channel, c.resource) end

return { admitted and '1' or '0', num(reason), num(now), num(retryAt), num(w.limit), num(w.remaining),
         num(w.reset), num(w.reserved), num(available), num(pool), num(share), num(claims), num(me.used), num(earliestAt) }
