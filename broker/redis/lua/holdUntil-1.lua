--[[
  Hold something (a global upstream pause, a resource block) until a time, extending but never
  shortening it. Several workers that hit the same secondary limit at once therefore make ONE
  pause, and the caller learns whether it started a fresh one (for metrics and logs).

  Input:
    KEYS[1] hold key (string: epoch ms)

    ARGV[1] now (epoch ms; "0" = Redis TIME)
    ARGV[2] hold until (epoch ms)

  Output: array of strings
    [1] 0 unchanged (an equal or later hold exists), 1 extended a running hold, 2 started a hold
    [2] epoch ms the hold now ends   [3] now
    or -1 when an argument is invalid.
]]
--- @include "_now"
local now = scriptNow(ARGV[1])
local untilMs = tonumber(ARGV[2])
if not untilMs then return -1 end
local current = tonumber(rcall('GET', KEYS[1]) or '0') or 0
if untilMs <= current or untilMs <= now then
  return { '0', tostring(math.max(current, now)), tostring(now) }
end
rcall('SET', KEYS[1], untilMs, 'PX', math.ceil(untilMs - now) + 1000)
return { current > now and '1' or '2', tostring(untilMs), tostring(now) }
