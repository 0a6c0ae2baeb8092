-- wrk script: POST /api/v1/ask with token auth (no CSRF, no session), cycling through a
-- question file of pre-encoded JSON bodies; collects the ids of 201 answers for the
-- no-lost-answers check. Env: BENCH_TOKEN, BENCH_BODIES (one JSON body per line), BENCH_IDS_OUT.
local threads = {}

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  bodies = {}
  for line in io.lines(os.getenv("BENCH_BODIES")) do
    bodies[#bodies + 1] = line
  end
  counter = tid or 0
  ids = {}
  statuses = {}
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Token " .. os.getenv("BENCH_TOKEN")
end

function request()
  counter = counter + 1
  return wrk.format("POST", "/api/v1/ask", nil, bodies[(counter % #bodies) + 1])
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status == 201 then
    local id = body:match('"id"%s*:%s*(%d+)')
    ids[#ids + 1] = id or "?"
  end
end

function done(summary, latency, requests)
  local out = io.open(os.getenv("BENCH_IDS_OUT"), "w")
  for _, t in ipairs(threads) do
    for _, id in ipairs(t:get("ids")) do
      out:write("id ", id, "\n")
    end
    for status, n in pairs(t:get("statuses")) do
      out:write("status ", status, " ", n, "\n")
    end
  end
  for _, p in ipairs({50, 90, 95, 99}) do
    out:write("latency_us p", p, " ", latency:percentile(p), "\n")
  end
  out:write("requests ", summary.requests, "\n")
  out:write("duration_us ", summary.duration, "\n")
  out:write("errors ", summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, "\n")
  out:write("timeouts ", summary.errors.timeout, "\n")
  out:write("non2xx ", summary.errors.status, "\n")
  out:close()
end
