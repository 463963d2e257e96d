--[[
  Settle an admission: drop its reservation, charge what the request really cost (to its session,
  or split over several sessions for a batched query), and take in GitHub's report of the bucket
  from the same answer when there is one. Without a report, `remaining` falls by the real cost.

  Input:
    KEYS[1] win   KEYS[2] resv   KEYS[3] seen   KEYS[4] sw   KEYS[5] sx   (see _budget.lua)

    ARGV[1..6]  common budget arguments (see _budget.lua)
    ARGV[7]  reservation member "<admissionId>|<sessionId>|<cost>" ("" when nothing was reserved)
    ARGV[8]  reserved cost
    ARGV[9]  real total cost (what GitHub charged; 0 for a 304, a failure or a release)
    ARGV[10] "1" when ARGV[11..13] carry GitHub's report from the same answer
    ARGV[11] reported limit   ARGV[12] reported remaining   ARGV[13] reported reset (epoch ms)
    ARGV[14], ARGV[15], ...  pairs of session id and charge (may be fractional)

  Output: array of strings
    [1] "1" when the reservation was still held  [2] now  [3] limit  [4] remaining  [5] reset
    or -1 when an argument is invalid.
]]
--- @include "_budget"

local k = budgetKeys()
local c = budgetCommon()
local member = ARGV[7]
local reservedCost = tonumber(ARGV[8])
local total = tonumber(ARGV[9])
local hasReport = ARGV[10] == '1'
if not (c.now and c.defaultLimit and c.windowMs and c.marginMs and reservedCost and total) then return -1 end
if hasReport and not (tonumber(ARGV[11]) and tonumber(ARGV[12]) and tonumber(ARGV[13])) then return -1 end
local now = c.now

local w, rolled = loadWindow(k, c)
local purged = purgeReservations(k, w, now)
local before = w.remaining

local removed = 0
if member ~= '' then
  removed = rcall('ZREM', k.resv, member)
  if removed == 1 then
    local sid = string.match(member, '^[^|]*|(.*)|[^|]*$')
    w.reserved = math.max(0, w.reserved - reservedCost)
    if sid then addHeld(k, sid, -reservedCost) end
  end
end

if hasReport then
  mergeObservation(k, w, c, tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13]))
else
  w.remaining = math.max(0, w.remaining - total)
end

for i = 14, #ARGV - 1, 2 do
  local sid, charge = ARGV[i], tonumber(ARGV[i + 1])
  if sid ~= '' and charge and charge > 0 then
    rcall('HINCRBYFLOAT', k.sw, 'u:' .. sid, charge)
    rcall('HSETNX', k.sw, 'f:' .. sid, now)
    rcall('HINCRBYFLOAT', k.sx, 't:' .. sid, charge)
  end
end
saveWindow(k, w)

if rolled or purged > 0 or w.remaining > before or (removed == 1 and reservedCost > total) then
  rcall('PUBLISH', c.channel, c.resource)
end
return { num(removed), num(now), num(w.limit), num(w.remaining), num(w.reset) }
