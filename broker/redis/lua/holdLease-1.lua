--[[
  Take a lease when it is free, or keep (and extend) it when it is already ours. One broker runs
  work that must not run twice (the lifecycle poller) this way; a crashed holder's lease expires.

  Input:
    KEYS[1] lease key (string: the holder's id)

    ARGV[1] holder id
    ARGV[2] lease length (ms)

  Output: 1 when the caller holds the lease after the call, 0 when another holder does,
    or -1 when an argument is invalid.
]]
local ttl = tonumber(ARGV[2])
if not ttl or ttl <= 0 or ARGV[1] == "" then return -1 end
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
