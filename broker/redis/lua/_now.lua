--[[
  Shared prelude of the scripts that need the time, pulled in with `--- @include "_now"`.
  scriptNow(arg): `arg` as epoch ms when it is a positive number, else Redis TIME (with effects
  replication on, so a script may call TIME before writing); "0" lets every broker use Redis's
  clock, so brokers never disagree about time.
]]
local rcall = redis.call
if redis.replicate_commands then redis.replicate_commands() end

local function scriptNow(arg)
  local n = tonumber(arg)
  if n and n > 0 then return n end
  local t = rcall('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
