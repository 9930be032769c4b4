-- Makes wrk print, after its own summary, one JSON object with what the
-- harness needs and wrk's summary lacks: responses counted by status code,
-- and the whole latency distribution, so that the latencies of several
-- generators' runs merge exactly.
-- Each thread counts in its own Lua state (response); done() adds them up.
-- Latencies are in microseconds, as wrk keeps them.
--
-- Given a depth after wrk's "--" (wrk ... URL -- 16), it also pipelines:
-- each write on a connection is that many requests at once, and the next
-- write waits for all their answers. wrk then counts every answer (and
-- calls response for each) but times each batch once, write to last answer.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
  local depth = tonumber(args[1]) or 1
  if depth > 1 then
    -- A global request makes wrk ask for each write's bytes: defined only
    -- when pipelining, so that a plain run keeps wrk's static request.
    local batch = string.rep(wrk.format(), depth)
    request = function() return batch end
  end
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

-- histogram lists every latency wrk recorded as value,count pairs. wrk keeps
-- a count per microsecond; latency(i) is the i-th value that has one, found
-- by a scan from the smallest, so the walk costs the distinct values times
-- their spread: a fraction of a second for a trial's latencies here (a 2 s
-- run with 12,000 values up to 45 ms ended 0.4 s late). Past walkLimit CPU
-- seconds (thousands of values spread over seconds) it gives up and prints
-- null: the harness then keeps wrk's own percentiles, and a merge of several
-- generators shows none, rather than the trial passing its deadline.
local walkLimit = 3

local function histogram(latency)
  local out, start = {}, os.clock()
  for i = 1, #latency do
    local value, count = latency(i)
    out[#out + 1] = string.format("%d,%d", value, count)
    if i % 256 == 0 and os.clock() - start > walkLimit then
      return "null"
    end
  end
  return "[" .. table.concat(out, ",") .. "]"
end

function done(summary, latency, requests)
  local codes = {}
  for _, t in ipairs(threads) do
    for code, n in pairs(t:get("statuses")) do
      codes[code] = (codes[code] or 0) + n
    end
  end
  local parts = {}
  for code, n in pairs(codes) do
    table.insert(parts, string.format('"%d":%d', code, n))
  end
  local e = summary.errors
  local pct = {}
  for _, p in ipairs({50, 75, 90, 95, 99, 99.9}) do
    table.insert(pct, string.format('"%s":%d', tostring(p), latency:percentile(p)))
  end
  io.write(string.format(
    '\nWEBBENCH-JSON {"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"statuses":{%s},"latency_us":{"mean":%f,"max":%d,"percentiles":{%s},"histogram":%s}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    table.concat(parts, ","), latency.mean, latency.max, table.concat(pct, ","), histogram(latency)))
end
