-- wrk script: GET answer pages with a session cookie. Env: BENCH_COOKIE, BENCH_PATHS (one path
-- per line), BENCH_IDS_OUT (summary file).
local threads = {}

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  paths = {}
  for line in io.lines(os.getenv("BENCH_PATHS")) do
    paths[#paths + 1] = line
  end
  counter = tid or 0
  statuses = {}
  wrk.headers["Cookie"] = os.getenv("BENCH_COOKIE")
end

function request()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1])
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local out = io.open(os.getenv("BENCH_IDS_OUT"), "w")
  for _, t in ipairs(threads) do
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
