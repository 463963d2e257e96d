--[[
  Extend a lock only while it is still ours: a leader renews its lock while its flight lasts, so
  the lock can be short and a crashed leader's lock soon expires. Unlike holdLease, it never takes
  a lock that is gone (the flight has ended and released it, or it expired and was taken).

  Input:
    KEYS[1] lock key (string: the holder's token)

    ARGV[1] holder token
    ARGV[2] new time to live (ms)

  Output: 1 when extended, 0 when the lock is not ours, or -1 when an argument is invalid.
]]
local ttl = tonumber(ARGV[2])
if not ttl or ttl <= 0 or ARGV[1] == "" then return -1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
