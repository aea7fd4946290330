#!/usr/bin/env python3
"""Checks docker/compose.yaml and runs, on a local build, the commands the
compose services and their health checks run (no container engine here).

  ops/check-packaging.sh            # schema + commands
  ops/check-packaging.sh --commands # commands only (no download)

The schema is the Compose Specification's, as docker-compose 1.29.2 ships it
(compose/config/compose_spec.json, fetched once from PyPI into
.build-packaging/). Paths under /var/lib/farelens and /run/farelens are moved
into a scratch directory; `farelens` and `farelensctl` are .build/debug's
(built with the NATS trait, as ops/test.sh builds it); the cluster
profile's `nats:` services are local nats-server processes on free ports.
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


def expand(value):
    """Compose's `${NAME:?message}` and `${NAME:-default}` from the environment."""
    import re
    def one(match):
        name, op, rest = match.group(1), match.group(2), match.group(3)
        if os.environ.get(name):
            return os.environ[name]
        if op == ":-":
            return rest
        fail(f"${{{name}}} is not set: {rest}")
    return re.sub(r"\$\{([A-Z0-9_]+)(:[?-])([^}]*)\}", one, value)


class NatsServers:
    """The profile's `nats:` services as local nats-server processes: each
    container's 4222 (clients), 6222 (routes) and 8222 (monitoring) become
    free loopback ports, and `nats-N:PORT` in every command and value points
    at them."""

    def __init__(self, names):
        import socket
        self.ports = {}
        for name in names:
            ports = []
            for _ in range(3):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    ports.append(s.getsockname()[1])
            self.ports[name] = dict(zip((4222, 6222, 8222), ports))

    def translate(self, word, own=None):
        for name, ports in self.ports.items():
            for inner, outer in ports.items():
                word = word.replace(f"{name}:{inner}", f"127.0.0.1:{outer}")
        if own:
            for inner, outer in self.ports[own].items():
                word = word.replace(f"0.0.0.0:{inner}", f"127.0.0.1:{outer}").replace(f"localhost:{inner}", f"127.0.0.1:{outer}")
        return word

    def command(self, name, service, scratch):
        executable = next((p for p in ("/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server") if os.access(p, os.X_OK)), None)
        if not executable:
            fail("nats-server is not installed (ops/install-deps.sh installs it)")
        words = []
        arguments = iter(service["command"])
        for word in arguments:
            if word == "-m":  # the monitoring port
                words += ["-m", str(self.ports[name][int(next(arguments))])]
            elif word == "-sd":  # the store: the container's volume, here a scratch directory
                next(arguments)
                words += ["-sd", os.path.join(scratch, name)]
            elif word.startswith("/etc/nats/"):  # a file the compose file mounts from the repository
                mount = next(v for v in service["volumes"] if v.split(":")[1] == word)
                words.append(os.path.normpath(os.path.join(ROOT, "docker", mount.split(":")[0])))
            else:
                words.append(self.translate(word, own=name))
        return [executable, "-a", "127.0.0.1", "-p", str(self.ports[name][4222])] + words

    def healthy(self, name, service):
        import urllib.request
        url = next(w for w in service["healthcheck"]["test"] if w.startswith("http://"))
        try:
            with urllib.request.urlopen(self.translate(url, own=name), timeout=5) as response:
                return response.status == 200
        except OSError:
            return False


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
    nats = NatsServers([name for name, s in services if s["image"].startswith("nats:")])
    processes = []
    try:
        # The NATS servers all at once, as compose starts them (a cluster's
        # JetStream is healthy only once a quorum of its servers runs).
        servers = [(name, service) for name, service in services if name in nats.ports]
        for name, service in servers:
            server_env = dict(os.environ, **{k: expand(str(v)) for k, v in service.get("environment", {}).items()})
            command = nats.command(name, service, scratch)
            processes.append((name, subprocess.Popen(command, env=server_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
        deadline = time.time() + 60
        for name, service in servers:
            process = next(p for n, p in processes if n == name)
            while not nats.healthy(name, service):
                if process.poll() is not None:
                    fail(f"{profile}/{name}: nats-server exited: {process.stdout.read()}")
                if time.time() > deadline:
                    fail(f"{profile}/{name}: its health check never passed within 60 s")
                time.sleep(0.2)  # safe: polling a health check, bounded by the 60 s deadline above
            print(f"{profile}/{name}: nats-server with its command's options started and its health check passed")
        for name, service in services:  # in file order: the hub before its spokes
            if name in nats.ports:
                continue
            for key, value in service.get("environment", {}).items():
                env[key] = nats.translate(local([expand(str(value))], scratch)[0])
            # The servers' passwords are the servers' environment, not the nodes'.
            for variable in ("FARELENS_NATS_ADMIN_PASSWORD", "FARELENS_NATS_NODE_PASSWORD"):
                env.pop(variable, None)
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
        if nats.ports:
            # Every node found the others over NATS: any node's socket sees every service.
            nodes = [service["command"] for name, service in services if name not in nats.ports]
            every = sorted({s for command in nodes for s in command[command.index("--services") + 1].split(",")})
            socket = local([nodes[-1][nodes[-1].index("--listen") + 1]], scratch)[0]
            command = [os.path.join(BIN, "farelensctl"), "status", "--expect", ",".join(every), "--socket", socket]
            deadline = time.time() + 30
            while subprocess.run(command, capture_output=True, timeout=20).returncode != 0:
                if time.time() > deadline:
                    fail(f"{profile}: `{' '.join(command)}` did not see every service over NATS within 30 s")
                time.sleep(0.2)  # safe: polling, bounded by the 30 s deadline above
            print(f"{profile}: every node sees {','.join(every)} over NATS")
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
    # The cluster profile's passwords, as an operator would export them.
    for variable in ("FARELENS_NATS_ADMIN_PASSWORD", "FARELENS_NATS_NODE_PASSWORD"):
        # nats-server reads the value as a configuration token: it starts with a letter (ops/nats/permissions.conf).
        os.environ.setdefault(variable, "pw-" + os.urandom(12).hex())
    for profile in ("all-in-one", "split", "cluster"):
        run_profile(compose, profile)
    print("check-packaging: ok")


if __name__ == "__main__":
    main()
