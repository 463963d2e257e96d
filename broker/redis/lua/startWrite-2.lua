--[[
  Grant a write its start: keep starts of writes a minimum gap apart across all brokers (GitHub
  asks for at least one second between mutating requests,
  https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#pause-between-mutative-requests)
  and, in the same step, set the job's "started" marker. Checked right before sending, so the gap
  holds at the wire; one script, so nothing (not even a round trip) lies between the grant, the
  marker and the send, and a run that finds the marker knows an earlier run of this job began
  sending.

  Input:
    KEYS[1] last-start key (string: epoch ms of the last granted start)
    KEYS[2] the job's started marker (string: the instance that started it)

    ARGV[1] now (epoch ms; "0" = Redis TIME)
    ARGV[2] minimum gap ms
    ARGV[3] marker time-to-live ms
    ARGV[4] instance id (the marker's value)

  Output: array of strings
    [1] "0" go (this start is recorded, the marker set), "1" wait, or "2" already started (the
        marker exists: outcome unknown, do not send)
    [2] epoch ms the caller may go at   [3] now
    or -1 when an argument is invalid.
]]
--- @include "_now"
local now = scriptNow(ARGV[1])
local gap = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
if not gap or gap < 0 or not ttl or ttl < 1 then return -1 end
if rcall('EXISTS', KEYS[2]) == 1 then return { '2', tostring(now), tostring(now) } end
local last = tonumber(rcall('GET', KEYS[1]) or '0') or 0
if now < last + gap then return { '1', tostring(last + gap), tostring(now) } end
rcall('SET', KEYS[1], now, 'PX', math.ceil(gap) + 60000)
rcall('SET', KEYS[2], ARGV[4], 'PX', math.ceil(ttl))
return { '0', tostring(now), tostring(now) }
