--[[
  Take in GitHub's report of one bucket (x-ratelimit-* headers, or the rateLimit object of a
  forwarded GraphQL query) without settling anything.

  Input:
    KEYS[1] win   KEYS[2] resv   KEYS[3] seen   KEYS[4] sw   KEYS[5] sx   (see _budget.lua)

    ARGV[1..6]  common budget arguments (see _budget.lua)
    ARGV[7]  reported limit   ARGV[8] reported remaining   ARGV[9] reported reset (epoch ms)

  Output: array of strings
    [1] "1" adopted / "0" ignored as stale  [2] "1" when a new window began  [3] now
    [4] limit  [5] remaining  [6] reset
    or -1 when an argument is invalid.
]]
--- @include "_budget"

local k = budgetKeys()
local c = budgetCommon()
local limit, remaining, reset = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
if not (c.now and c.defaultLimit and c.windowMs and c.marginMs and limit and remaining and reset) then
  return -1
end

local w, rolled = loadWindow(k, c)
local before = w.remaining
local newWindow, adopted = mergeObservation(k, w, c, limit, remaining, reset)
saveWindow(k, w)
if rolled or newWindow or w.remaining > before then rcall('PUBLISH', c.channel, c.resource) end
return { adopted and '1' or '0', newWindow and '1' or '0', num(c.now), num(w.limit), num(w.remaining),
         num(w.reset) }
