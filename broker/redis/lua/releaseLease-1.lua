--[[
  Give a lease up, only if it is still ours (it may have expired and been taken by another).

  Input:
    KEYS[1] lease key (string: the holder's id)

    ARGV[1] holder id

  Output: 1 when released, 0 when the lease was not ours.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
