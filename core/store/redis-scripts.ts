/**
 * The Lua scripts of RedisStore (core/store/redis-store.ts). Each touches the keys of one collection (its
 * values hash, sort index and claims, all under the collection's hash tag) or one lock key, so it runs in
 * one cluster slot.
 */

// An omitted sort key is sent as "" and means: keep the entry's current one (0 for a new entry). `answer` ends
// the script; `created` holds HSET's count of new fields: 1 when the entry was created, 0 when it was replaced.
const writeLua = (answer: string): string => `
local created = redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '' then redis.call('ZADD', KEYS[2], 'NX', 0, ARGV[1])
else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end
${answer}`;

const WRITE_LUA = writeLua("return 1");

/** WRITE_LUA answering whether it created the entry (1) or replaced it (0): Store.replace. */
const REPLACE_LUA = writeLua("return created");

// WRITE_LUA for several entries of one collection: ARGV holds key, JSON and sort key of each in turn.
const WRITE_MANY_LUA = `
for i = 1, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[2], ARGV[i + 2], ARGV[i])
end
return #ARGV / 3`;

const PUT_IF_ABSENT_LUA = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3] == '' and 0 or ARGV[3], ARGV[1])
return 1`;

// Compare-and-set on the stored JSON text; ARGV[4] is what the caller read ("" = absent).
const COMPARE_AND_SET_LUA = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[4] == '' then
  if current then return 0 end
elseif current ~= ARGV[4] then return 0 end
${WRITE_LUA}`;

// Count, page and values in one script so they come from one consistent snapshot. The page is read
// by rank (ZRANGE start stop: O(log N + page)), not BYSCORE LIMIT offset, which steps over the offset:
// the rank of the range's first entry is the count below its lower bound (ZCOUNT: O(log N)).
const rangeLua = (answer: string): string => `
local total = redis.call('ZCOUNT', KEYS[2], ARGV[1], ARGV[2])
local out = { total }
local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
if total == 0 or limit <= 0 or offset >= total then ${answer} end
local below = 0
if ARGV[1] ~= '-inf' then below = redis.call('ZCOUNT', KEYS[2], '-inf', '(' .. ARGV[1]) end
local last = math.min(offset + limit, total) - 1
local members = redis.call('ZRANGE', KEYS[2], below + offset, below + last)
for i = 1, #members, 500 do
  local values = redis.call('HMGET', KEYS[1], unpack(members, i, math.min(i + 499, #members)))
  for j = 1, #values do
    if values[j] then out[#out + 1] = values[j] end
  end
end
${answer}`;

export const RANGE_LUA = rangeLua("return out");

// COMPARE_AND_SET_LUA of an entry that holds names (updateClaiming) in KEYS[3], the claims hash (name -> holder
// key) under the collection's hash tag. ARGV[5], ARGV[6]: JSON arrays of the names the stored value held and of
// those the new value holds. A name another key holds answers { name, holder } and writes nothing.
const CLAIMING_COMPARE_AND_SET_LUA = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[4] == '' then
  if current then return 0 end
elseif current ~= ARGV[4] then return 0 end
local held, wanted, keep = cjson.decode(ARGV[5]), cjson.decode(ARGV[6]), {}
for _, name in ipairs(wanted) do
  local holder = redis.call('HGET', KEYS[3], name)
  if holder and holder ~= ARGV[1] then return { name, holder } end
  keep[name] = true
end
for _, name in ipairs(held) do
  if not keep[name] and redis.call('HGET', KEYS[3], name) == ARGV[1] then redis.call('HDEL', KEYS[3], name) end
end
for _, name in ipairs(wanted) do redis.call('HSET', KEYS[3], name, ARGV[1]) end
${WRITE_LUA}`;

const ACQUIRE_LOCK_LUA = `
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if owner then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

const RENEW_LOCK_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const RELEASE_LOCK_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

const DELETE_LUA = `
local removed = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return removed`;


// Store.indexedRecords: KEYS[1] a collection's values hash, KEYS[2] its sorted set, KEYS[3] the hash of the index sets
// each record is in (a JSON array of their names), KEYS[4…] index sets: those of the index values written, and those
// the client was told its records are in now. ARGV[1]: 'add' (a record already written is left as it is) or 'put'
// (replaced, taken out of the sets it was in); then per record: key, JSON, sort key, n, and the positions in KEYS of
// the n index sets that list it. Every set is under the collection's hash tag, in its slot. A script touches only the
// keys it is handed: when a record is in a set not in KEYS it writes nothing and answers { 0, names of those sets }, for
// the client to run it again with them; else { how many it wrote }.
const WRITE_RECORDS_LUA = `
local declared, undeclared, olds = {}, {}, {}
for k = 4, #KEYS do declared[KEYS[k]] = true end
local i = 2
while i <= #ARGV do
  local key = ARGV[i]
  if olds[key] == nil then
    local old = redis.call('HGET', KEYS[3], key)
    olds[key] = old and cjson.decode(old) or false
    if old then
      for _, place in ipairs(olds[key]) do
        if not declared[place] then declared[place] = true; undeclared[#undeclared + 1] = place end
      end
    end
  end
  i = i + 4 + tonumber(ARGV[i + 3])
end
if #undeclared > 0 then table.insert(undeclared, 1, 0); return undeclared end
local written = 0
i = 2
while i <= #ARGV do
  local key, score, n = ARGV[i], ARGV[i + 2], tonumber(ARGV[i + 3])
  if ARGV[1] == 'put' or redis.call('HEXISTS', KEYS[1], key) == 0 then
    local old = olds[key]
    if old then for _, place in ipairs(old) do redis.call('ZREM', place, key) end end
    redis.call('HSET', KEYS[1], key, ARGV[i + 1])
    redis.call('ZADD', KEYS[2], score, key)
    local places = {}
    for j = 1, n do
      places[j] = KEYS[tonumber(ARGV[i + 3 + j])]
      redis.call('ZADD', places[j], score, key)
    end
    if n > 0 then redis.call('HSET', KEYS[3], key, cjson.encode(places)); olds[key] = places
    elseif old then redis.call('HDEL', KEYS[3], key); olds[key] = false end
    written = written + 1
  end
  i = i + 4 + n
end
return { written }`;

/** Every script that writes; in cluster mode each is followed by WAIT on the same node (RedisStore.write). */
export const WRITE_SCRIPTS = {
  storeWrite: { numberOfKeys: 2, lua: WRITE_LUA },
  storeReplace: { numberOfKeys: 2, lua: REPLACE_LUA },
  storeWriteMany: { numberOfKeys: 2, lua: WRITE_MANY_LUA },
  storePutIfAbsent: { numberOfKeys: 2, lua: PUT_IF_ABSENT_LUA },
  storeCompareAndSet: { numberOfKeys: 2, lua: COMPARE_AND_SET_LUA },
  storeClaimingCompareAndSet: { numberOfKeys: 3, lua: CLAIMING_COMPARE_AND_SET_LUA },
  storeDelete: { numberOfKeys: 2, lua: DELETE_LUA },
  storeAcquireLock: { numberOfKeys: 1, lua: ACQUIRE_LOCK_LUA },
  storeRenewLock: { numberOfKeys: 1, lua: RENEW_LOCK_LUA },
  storeReleaseLock: { numberOfKeys: 1, lua: RELEASE_LOCK_LUA },
  // its first argument: how many keys
  storeWriteRecords: { lua: WRITE_RECORDS_LUA },
};
export type WriteScript = keyof typeof WRITE_SCRIPTS;
