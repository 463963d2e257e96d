--[[
  Read the state of one resource for views (`ao-broker budget`, `ao-broker sessions`, the
  per-session x-ratelimit-* headers), doing the same housekeeping as the writers first (roll an
  expired window, free expired reservations, forget inactive sessions) so views never show
  a state the admission script would not act on.

  Input:
    KEYS[1] win   KEYS[2] resv   KEYS[3] seen   KEYS[4] sw   KEYS[5] sx   (see _budget.lua)

    ARGV[1..6]  common budget arguments (see _budget.lua)
    ARGV[7]  active ms

  Output: array
    [1] window: now, limit, remaining, reset, start, est, reserved, in-flight count (strings)
    [2] active sessions in Redis order, flat: id, last seen, weight, settled, held, first, denied
        ("" when never refused)
    [3] HGETALL of sw (per-window spend)   [4] HGETALL of sx (across windows)
    or -1 when an argument is invalid.
]]
--- @include "_budget"

local k = budgetKeys()
local c = budgetCommon()
local activeMs = tonumber(ARGV[7])
if not (c.now and c.defaultLimit and c.windowMs and c.marginMs and activeMs) then return -1 end
local now = c.now

local w, rolled = loadWindow(k, c)
local purged = purgeReservations(k, w, now)
pruneInactive(k, now, activeMs)
-- A read writes only when housekeeping changed something (views poll every 250 ms per broker).
if rolled or purged > 0 then
  saveWindow(k, w)
  rcall('PUBLISH', c.channel, c.resource)
end

local active = {}
local seen = rcall('ZRANGE', k.seen, 0, -1, 'WITHSCORES')
for i = 1, #seen, 2 do
  local sid = seen[i]
  local a = rcall('HMGET', k.sw, 'u:' .. sid, 'f:' .. sid)
  local b = rcall('HMGET', k.sx, 'h:' .. sid, 'w:' .. sid, 'd:' .. sid)
  table.insert(active, sid)
  table.insert(active, seen[i + 1])
  table.insert(active, b[2] or '1')
  table.insert(active, a[1] or '0')
  table.insert(active, b[1] or '0')
  table.insert(active, a[2] or num(now))
  table.insert(active, b[3] or '')
end

local window = { num(now), num(w.limit), num(w.remaining), num(w.reset), num(w.start), w.est and '1' or '0',
                 num(w.reserved), num(rcall('ZCARD', k.resv)) }
return { window, active, rcall('HGETALL', k.sw), rcall('HGETALL', k.sx) }
