#!/usr/bin/env python3
"""The gateway under wrk, beside a bare Hummingbird route, in the same run.

    python3 Benchmarks/gateway-bench.py [--rounds 3] [--seconds 8] [--connections 32]

Builds (release) `farelens` and the reference `bare-hummingbird`, starts a
node with every service and the gateway (its rate limits raised so they do
not cap the figures), signs a user up, warms the search cache, then runs wrk
against, in turn each round: the bare route, `GET /v1/airports?q=san`, a
cached `POST /v1/search`, and `GET /v1/me/deals`. It prints one line per
figure with the bare route's figure from the same round and the ratio, then
the medians over the rounds. Then the overload check: the default limits,
2x the connections that saturate the gateway, and the statuses, RSS before
and after, and whether the node is still up.

Needs wrk (Debian; ops/install-deps.sh installs it as root) and curl. Loopback only. Every run is bounded (wrk -d).
"""
import argparse, json, os, re, signal, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build():
    subprocess.run(["swift", "build", "-c", "release", "--product", "farelens"], cwd=ROOT, check=True)
    subprocess.run(["swift", "build", "-c", "release", "--product", "bare-hummingbird", "--package-path", "Benchmarks"], cwd=ROOT, check=True)
    return os.path.join(ROOT, ".build/release/farelens"), os.path.join(ROOT, "Benchmarks/.build/release/bare-hummingbird")


def wait_for(url, headers=None, deadline=60):
    end = time.time() + deadline
    while time.time() < end:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=2) as r:
                if r.status < 500:
                    return
        except Exception:
            time.sleep(0.1)  # bounded by the deadline above
    sys.exit(f"gateway-bench: {url} did not answer within {deadline} s")


def post(url, body, headers=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def wrk(url, seconds, connections, script=None):
    args = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s"]
    if script:
        args += ["-s", script]
    out = subprocess.run(args + [url], capture_output=True, text=True, timeout=seconds + 30).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    scale = {"us": 1e-3, "ms": 1.0, "s": 1e3}[p99.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, float(p99.group(1)) * scale, int(non2xx.group(1)) if non2xx else 0, out


def lua(directory, name, method, token, body=None):
    path = os.path.join(directory, name + ".lua")
    with open(path, "w") as f:
        f.write(f'wrk.method = "{method}"\n')
        f.write(f'wrk.headers["Authorization"] = "Bearer {token}"\n')
        if body is not None:
            f.write('wrk.headers["Content-Type"] = "application/json"\n')
            f.write(f"wrk.body = {json.dumps(json.dumps(body))}\n")
    return path


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--no-build", action="store_true")
    options = parser.parse_args()
    farelens, bare = (os.path.join(ROOT, ".build/release/farelens"), os.path.join(ROOT, "Benchmarks/.build/release/bare-hummingbird")) if options.no_build else build()
    work = tempfile.mkdtemp(prefix="gateway-bench-")
    environment = dict(os.environ, FARELENS_SEARCH_SWEEP_INTERVAL_SECONDS="0", FARELENS_LOG_LEVEL="error",
                       FARELENS_GATEWAY_USER_BURST="1000000", FARELENS_GATEWAY_USER_PER_SECOND="1000000")
    node = subprocess.Popen([farelens, "serve", "--data-dir", work + "/data", "--http-listen", "127.0.0.1:18080"], env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    reference = subprocess.Popen([bare, "18090"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ready = node.stdout.readline().strip()
        print(f"node: {ready}")
        base = "http://127.0.0.1:18080"
        wait_for(base + "/healthz")
        wait_for("http://127.0.0.1:18090/constant")
        session = post(base + "/v1/auth/signup", {"email": "bench@example.com", "password": "correct horse battery",
                                                   "time_zone": "America/New_York", "home_airport": "JFK"})
        token = session["access_token"]
        search = {"origin": "JFK", "destination": "LAX", "departure_date": {"year": 2027, "month": 1, "day": 15}, "adults": 1}
        first = post(base + "/v1/search", search, {"Authorization": f"Bearer {token}"})
        again = post(base + "/v1/search", search, {"Authorization": f"Bearer {token}"})
        print(f"search cache: first from_cache={first.get('from_cache')}, second from_cache={again.get('from_cache')}")
        scripts = {
            "airports": (base + "/v1/airports?q=san", lua(work, "airports", "GET", token)),
            "cached search": (base + "/v1/search", lua(work, "search", "POST", token, search)),
            "feed": (base + "/v1/me/deals", lua(work, "feed", "GET", token)),
        }
        results = {name: [] for name in scripts}
        for round_number in range(1, options.rounds + 1):
            for name, (url, script) in scripts.items():
                bare_rps, bare_p99, _, _ = wrk("http://127.0.0.1:18090/constant", options.seconds, options.connections)
                rps, p99, errors, _ = wrk(url, options.seconds, options.connections, script)
                results[name].append((rps, p99, bare_rps, bare_p99))
                print(f"round {round_number} {name}: {rps:,.0f} req/s, p99 {p99:.2f} ms (non-2xx {errors}) | bare route {bare_rps:,.0f} req/s, "
                      f"p99 {bare_p99:.2f} ms | req/s {rps / bare_rps:.2f}x, p99 {p99 / bare_p99:.2f}x")
        print(f"medians over {options.rounds} rounds, wrk -t2 -c{options.connections} -d{options.seconds}s, loopback, release:")
        for name, rows in results.items():
            ratio_rps = statistics.median(r[0] / r[2] for r in rows)
            ratio_p99 = statistics.median(r[1] / r[3] for r in rows)
            print(f"  {name}: {statistics.median(r[0] for r in rows):,.0f} req/s, p99 {statistics.median(r[1] for r in rows):.2f} ms; "
                  f"bare route {statistics.median(r[2] for r in rows):,.0f} req/s, p99 {statistics.median(r[3] for r in rows):.2f} ms; "
                  f"ratio req/s {ratio_rps:.2f} (target >= 0.50), p99 {ratio_p99:.2f} (target <= 2.00)")
    finally:
        node.send_signal(signal.SIGINT)
        reference.send_signal(signal.SIGINT)
        node.wait(timeout=30)
        reference.wait(timeout=30)

    # Overload: the default limits, twice the connections.
    environment.pop("FARELENS_GATEWAY_USER_BURST")
    environment.pop("FARELENS_GATEWAY_USER_PER_SECOND")
    node = subprocess.Popen([farelens, "serve", "--data-dir", work + "/data", "--http-listen", "127.0.0.1:18080"], env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        node.stdout.readline()
        wait_for("http://127.0.0.1:18080/healthz")
        session = post("http://127.0.0.1:18080/v1/auth/signin", {"email": "bench@example.com", "password": "correct horse battery"})
        script = lua(work, "overload", "GET", session["access_token"])
        before = rss_kib(node.pid)
        for _ in range(3):
            rps, p99, non2xx, out = wrk("http://127.0.0.1:18080/v1/me/deals", options.seconds, 2 * options.connections, script)
            print(f"overload (2x connections, default limits): {rps:,.0f} req/s answered, {non2xx} of them not 2xx (429 rate-limited), "
                  f"p99 {p99:.2f} ms, RSS {rss_kib(node.pid) / 1024:.1f} MiB (before {before / 1024:.1f} MiB), node alive: {node.poll() is None}")
    finally:
        node.send_signal(signal.SIGINT)
        node.wait(timeout=30)


if __name__ == "__main__":
    main()
