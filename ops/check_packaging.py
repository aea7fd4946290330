#!/usr/bin/env python3
"""Checks docker/compose.yaml and runs, on a local build, the commands the
compose services and their health checks run (no container engine here).

  ops/check-packaging.sh            # schema + commands
  ops/check-packaging.sh --commands # commands only (no download)

The schema is the Compose Specification's, as docker-compose 1.29.2 ships it
(compose/config/compose_spec.json, fetched once from PyPI into
.build-packaging/). Paths under /var/lib/farelens and /run/farelens are moved
into a scratch directory; `farelens` and `farelensctl` are .build/debug's.
"""
import json, os, shutil, subprocess, sys, tempfile, time, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".build-packaging")
BIN = os.path.join(ROOT, ".build", "debug")


def fail(message):
    print(f"check-packaging: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def load_compose():
    import yaml  # PyYAML
    with open(os.path.join(ROOT, "docker", "compose.yaml")) as f:
        return yaml.safe_load(f)


def check_schema(compose):
    schema_path = os.path.join(CACHE, "compose_spec.json")
    if not os.path.exists(schema_path):
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", CACHE, "docker-compose==1.29.2"], check=True)
        wheel = next(os.path.join(CACHE, n) for n in os.listdir(CACHE) if n.endswith(".whl"))
        with zipfile.ZipFile(wheel) as z, open(schema_path, "wb") as out:
            out.write(z.read("compose/config/compose_spec.json"))
    import jsonschema
    with open(schema_path) as f:
        schema = json.load(f)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(compose), key=lambda e: list(e.path))
    if errors:
        fail("docker/compose.yaml against the Compose Specification: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors))
    print(f"schema: docker/compose.yaml is valid against the Compose Specification ({len(compose['services'])} services)")


def local(words, scratch):
    out = []
    for w in words:
        w = w.replace("/var/lib/farelens", os.path.join(scratch, "lib")).replace("/run/farelens", os.path.join(scratch, "run"))
        if w in ("farelens", "farelensctl"):
            w = os.path.join(BIN, w)
        out.append(w)
    return out


def health(service, scratch):
    test = service["healthcheck"]["test"]
    if test[0] == "CMD":
        command = local(test[1:], scratch)
        return subprocess.run(command, capture_output=True, timeout=20).returncode == 0
    line = test[1]
    for name in ("farelensctl", "farelens"):
        line = line.replace(name + " ", os.path.join(BIN, name) + " ", 1)
    line = line.replace("/var/lib/farelens", os.path.join(scratch, "lib")).replace("/run/farelens", os.path.join(scratch, "run"))
    return subprocess.run(["sh", "-c", line], capture_output=True, timeout=20).returncode == 0


def run_profile(compose, profile):
    services = [(name, s) for name, s in compose["services"].items() if profile in s.get("profiles", [])]
    scratch = tempfile.mkdtemp(prefix="farelens-compose-")
    os.makedirs(os.path.join(scratch, "run"))
    env = dict(os.environ, FARELENS_SEARCH_SWEEP_INTERVAL_SECONDS="0")
    processes = []
    try:
        for name, service in services:  # in file order: the hub before its spokes
            for key, value in service.get("environment", {}).items():
                env[key] = local([str(value)], scratch)[0]
            # The API's port as the system chooses: the image's 8080 may be taken on this machine.
            if "FARELENS_GATEWAY_LISTEN" in env:
                env["FARELENS_GATEWAY_LISTEN"] = env["FARELENS_GATEWAY_LISTEN"].rsplit(":", 1)[0] + ":0"
            command = [os.path.join(BIN, "farelens")] + local(service["command"], scratch)
            processes.append((name, subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
            deadline = time.time() + 60
            while not health(service, scratch):
                if processes[-1][1].poll() is not None:
                    fail(f"{profile}/{name}: `{' '.join(command)}` exited: {processes[-1][1].stdout.read()}")
                if time.time() > deadline:
                    fail(f"{profile}/{name}: its health check never passed within 60 s")
                time.sleep(0.2)  # safe: polling a health check, bounded by the 60 s deadline above
            print(f"{profile}/{name}: its command started a node and its health check passed")
    finally:
        for _, process in processes:
            process.kill()
            process.wait()
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    compose = load_compose()
    if "--commands" not in sys.argv:
        check_schema(compose)
    for tool in ("farelens", "farelensctl"):
        if not os.access(os.path.join(BIN, tool), os.X_OK):
            fail(f"{BIN}/{tool} is missing: run swift build first")
    for profile in ("all-in-one", "split"):
        run_profile(compose, profile)
    print("check-packaging: ok")


if __name__ == "__main__":
    main()
