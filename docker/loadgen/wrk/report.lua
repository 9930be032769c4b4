-- Makes wrk print, after its own summary, one JSON object with what the
-- harness needs and wrk's summary lacks: responses counted by status code.
-- Each thread counts in its own Lua state (response); done() adds them up.
-- Latencies are in microseconds, as wrk keeps them.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
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
    '"statuses":{%s},"latency_us":{"mean":%f,"max":%d,"percentiles":{%s}}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    table.concat(parts, ","), latency.mean, latency.max, table.concat(pct, ",")))
end
