import { LEASES_LUA } from "../../store/shared-reads";

/**
 * Outbox.enqueueAll on one Redis, as one script (RedisStore.scriptOnOneRedis): KEYS are the values hash and
 * sort index of outbox:meta, outbox:partners, the generation leases (their values key: SharedReads), then
 * of each partner's queue, then (with a guard) the guard's values hash and index; ARGV[1] the time, ARGV[2]
 * the number of messages, ARGV[3] and ARGV[4] the guard's key and value ('' without one: a guard whose entry
 * does not hold that value queues nothing and returns nil), ARGV[5] this instance's lease holder, then 10 per
 * message (see enqueueOnOneRedis).
 * Per message, in order: the positions (reserveSeqs), the collapse slots (collapse: a waiting message is
 * replaced and moved to the tail, one in flight or already tried is left as it is, a newer one already there
 * is kept), else the queue entry (put, or putIfAbsent for a stable id), then the partner's outbox:partners
 * entry (putIfAbsent). Returns the ids.
 *
 * While another instance's generation lease runs (an instance busy serving cached answers uses the
 * generations it read for a few milliseconds: SharedReads), the messages are due only once it has ended
 * (nextAttemptAt, by Redis's clock, as every instance's retry times are compared with its own): a change's
 * push, queued right after its cache invalidation was sent, never reaches a partner while an instance may
 * still answer from what the change made stale.
 */
export const ENQUEUE_LUA = `${LEASES_LUA}
local now, count = ARGV[1], tonumber(ARGV[2])
if ARGV[3] ~= '' and redis.call('HGET', KEYS[#KEYS - 1], ARGV[3]) ~= ARGV[4] then return nil end
local due = others_lease_end(KEYS[5], ARGV[5], lease_now())
if due > 0 then due = due + 1 end
local meta = redis.call('HGET', KEYS[1], 'seq')
local last = (meta and cjson.decode(meta).seq or 0) + count
redis.call('HSET', KEYS[1], 'seq', '{"seq":' .. string.format('%d', last) .. '}')
redis.call('ZADD', KEYS[2], 'NX', 0, 'seq')
local function int(n) return string.format('%d', n) end
local function complete(json, id, seq)
  return string.sub(json, 1, -2) .. ',"id":' .. cjson.encode(id) .. ',"seq":' .. int(seq) .. ',"nextAttemptAt":' .. int(due) .. '}'
end
local ids = {}
for m = 0, count - 1 do
  local a = 6 + m * 10
  local k = tonumber(ARGV[a])
  local qv, qi = KEYS[k], KEYS[k + 1]
  local partner, slot0, slot1, id, mode = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  local label, request, fresh, entry = ARGV[a + 6], ARGV[a + 7], ARGV[a + 8], ARGV[a + 9]
  local seq = last - count + 1 + m
  local placed = nil
  if slot0 ~= '' then
    for _, slot in ipairs({ slot0, slot1 }) do
      local current = redis.call('HGET', qv, slot)
      if not current then
        redis.call('HSET', qv, slot, complete(fresh, slot, seq))
        redis.call('ZADD', qi, seq, slot)
        placed = slot
      else
        local c = cjson.decode(current)
        if c.inFlight ~= true and c.attempts == 0 then
          placed = slot
          if c.seq <= seq then
            local at = math.max(c.nextAttemptAt or 0, due)
            c.request, c.seq, c.enqueuedAt, c.label, c.nextAttemptAt = nil, nil, nil, label, nil
            local json = string.sub(cjson.encode(c), 1, -2)
            redis.call('HSET', qv, slot, json .. ',"seq":' .. int(seq) .. ',"nextAttemptAt":' .. int(at) .. ',"enqueuedAt":' .. now .. ',"request":' .. request .. '}')
            redis.call('ZADD', qi, seq, slot)
          end
        end
      end
      if placed then break end
    end
  end
  if not placed then
    placed = id
    local json = complete(fresh, id, seq)
    if mode == 'once' then
      if redis.call('HSETNX', qv, id, json) == 1 then redis.call('ZADD', qi, seq, id) end
    else
      redis.call('HSET', qv, id, json)
      redis.call('ZADD', qi, seq, id)
    end
  end
  ids[m + 1] = placed
  if redis.call('HSETNX', KEYS[3], partner, entry) == 1 then redis.call('ZADD', KEYS[4], 0, partner) end
end
return ids`;

/**
 * Outbox.claim on one Redis, in one round trip instead of a read and a compare-and-set: KEYS[1] is the
 * queue's values hash, ARGV the message's id and seq. Marks the message in flight when it is still there at
 * that seq and returns it; nil when not. `inFlight` is appended to the stored text (the body is never
 * decoded and re-encoded: cjson would turn an empty array into an object); a `false` an earlier failure left
 * stays before it, and the last of the two is the one JSON.parse and cjson read.
 */
export const CLAIM_LUA = `
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return nil end
local m = cjson.decode(json)
if m.seq ~= tonumber(ARGV[2]) then return nil end
if m.inFlight ~= true then
  json = string.sub(json, 1, -2) .. ',"inFlight":true}'
  redis.call('HSET', KEYS[1], ARGV[1], json)
end
return json`;
