"""A Standard Webhooks receiver that verifies with the reference library.

Used by WebhookReceiverProcessTests (Tests/FareLensWireTests): a receiver
written from docs/webhooks.md alone, verifying each request with PyPI's
`standardwebhooks` (installed into .build/python-venv by ops/install-deps.sh)
and its default timestamp tolerance (5 minutes either way), never FareLens's
own code.

    WEBHOOK_SECRET=whsec_… python webhook_receiver.py LOG_FILE

Listens on 127.0.0.1, on a port the system chooses, and prints that port
alone on its first line. Each POST is verified with
`standardwebhooks.Webhook(secret).verify(body, headers)`: answered 200 when
verified, 400 otherwise (FareLens dead-letters a 400 at once). Before
answering, one JSON line per request is appended to LOG_FILE:
{"id": webhook-id, "verified": true|false, "error": null|"…", "type": the
payload's type when verified}. The secret comes from the environment, so it
is not on the command line.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from standardwebhooks import Webhook
except ImportError as error:
    sys.stderr.write(
        f"webhook_receiver: cannot import standardwebhooks ({error}); "
        "run ops/install-deps.sh, which installs it into .build/python-venv\n")
    sys.exit(2)


def main() -> None:
    if len(sys.argv) != 2:
        sys.stderr.write("usage: WEBHOOK_SECRET=whsec_… webhook_receiver.py LOG_FILE\n")
        sys.exit(2)
    log_path = sys.argv[1]
    secret = os.environ.get("WEBHOOK_SECRET", "")
    if not secret:
        sys.stderr.write("webhook_receiver: WEBHOOK_SECRET is not set\n")
        sys.exit(2)
    webhook = Webhook(secret)
    lock = threading.Lock()

    def record(line: dict) -> None:
        text = json.dumps(line, sort_keys=True) + "\n"
        with lock, open(log_path, "a", encoding="utf-8") as log:
            log.write(text)
            log.flush()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            headers = {name: value for name, value in self.headers.items()}
            line = {"id": self.headers.get("webhook-id"), "verified": False, "error": None, "type": None}
            try:
                payload = webhook.verify(body, headers)
                line["verified"] = True
                if isinstance(payload, dict):
                    line["type"] = payload.get("type")
            except Exception as error:  # the library's WebhookVerificationError, or a malformed header
                line["error"] = f"{type(error).__name__}: {error}"
            record(line)
            status = 200 if line["verified"] else 400
            answer = b"{}" if line["verified"] else json.dumps({"error": line["error"]}).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
            pass  # the JSON lines are the record

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
