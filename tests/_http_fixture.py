"""A real HTTP server on 127.0.0.1 (random free port) serving one directory.

It counts the GET requests per path, and can cut chosen responses short (it
announces the full Content-Length, sends half of the body and closes).
"""

import http.server
import threading
from collections import Counter
from pathlib import Path


class LocalHTTPServer:
    """``ThreadingHTTPServer`` in a daemon thread; ``url`` ends with a slash."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.requests = Counter()
        self.truncated = set()
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(server.root), **kwargs)

            def do_GET(self):  # noqa: N802 (http.server's naming)
                server.requests[self.path] += 1
                if self.path in server.truncated:
                    body = (server.root / self.path.lstrip("/")).read_bytes()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[: len(body) // 2])
                    self.close_connection = True
                    return
                super().do_GET()

            def log_message(self, *args):  # keep the test output clean
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True)
        self.thread.start()

    def close(self):
        """Stop serving and release the port."""
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=300)  # minutes: a loaded laptop is slow
