--[[
  Forget a closed session in one resource: its activity, weight, spend and refusal marks. Its
  in-flight reservations stay until they are settled or expire, so the global count stays right.

  Input:
    KEYS[1] win   KEYS[2] resv   KEYS[3] seen   KEYS[4] sw   KEYS[5] sx   (see _budget.lua)

    ARGV[1] session id

  Output: 1, or -1 when the session id is empty.
]]
local sid = ARGV[1]
if sid == nil or sid == '' then return -1 end
redis.call('ZREM', KEYS[3], sid)
redis.call('HDEL', KEYS[4], 'u:' .. sid, 'f:' .. sid)
redis.call('HDEL', KEYS[5], 'w:' .. sid, 'd:' .. sid, 't:' .. sid, 'g:' .. sid)
return 1
