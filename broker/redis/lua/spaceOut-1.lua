--[[
  Keep starts of one kind of request a minimum gap apart, across all brokers: GitHub asks for at
  least one second between mutating requests
  (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#pause-between-mutative-requests).
  Checked right before sending, so the gap holds at the wire, not only between job starts.

  Input:
    KEYS[1] last-start key (string: epoch ms of the last granted start)

    ARGV[1] now (epoch ms; "0" = Redis TIME)
    ARGV[2] minimum gap ms

  Output: array of strings
    [1] "0" go (this start is recorded) or "1" wait   [2] epoch ms the caller may go at
    [3] now
    or -1 when an argument is invalid.
]]
--- @include "_now"
local now = scriptNow(ARGV[1])
local gap = tonumber(ARGV[2])
if not gap or gap < 0 then return -1 end
local last = tonumber(rcall('GET', KEYS[1]) or '0') or 0
if now < last + gap then return { '1', tostring(last + gap), tostring(now) } end
rcall('SET', KEYS[1], now, 'PX', math.ceil(gap) + 60000)
return { '0', tostring(now), tostring(now) }
