"""
One Python process serving several ASGI apps, each on its own loopback port, with uvicorn (the
server FastAPI's and Django's deployment documentation name): the variants of one framework's
implementation share the interpreter and its start-up, and each run of the harness gets its own
port.

The ready line (one JSON object on stdout: {"ports": {name: port}}) is written once every socket
listens, so the first request can come at once. The process ends when its stdin closes: the test
process that started it is gone, whatever happened to it.
"""
import asyncio
import json
import logging
import os
import socket
import sys
import threading
from typing import Any, Callable, Dict

import uvicorn


def _exit_when_stdin_closes() -> None:
    sys.stdin.buffer.read()
    os._exit(0)


def serve_apps(apps: Dict[str, Callable[..., Any]]) -> None:
    """Serves each app of `apps` on a port of its own on 127.0.0.1 until stdin closes."""
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    sockets: Dict[str, socket.socket] = {}
    for name in apps:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        sock.set_inheritable(True)
        sockets[name] = sock

    servers = []
    for name, app in apps.items():
        # lifespan off: Django's ASGI handler refuses lifespan scopes; the FastAPI apps have no
        # start-up hooks. The harness's own keep-alive pool closes idle connections sooner than
        # uvicorn's 5 s.
        config = uvicorn.Config(app, lifespan="off", access_log=False, log_level="warning")
        server = uvicorn.Server(config)
        # Several servers share one loop: none takes SIGTERM for itself (its default ends the process).
        server.install_signal_handlers = lambda: None  # type: ignore[assignment]
        servers.append(server.serve(sockets=[sockets[name]]))

    threading.Thread(target=_exit_when_stdin_closes, daemon=True).start()
    print(json.dumps({"ports": {name: sock.getsockname()[1] for name, sock in sockets.items()}}), flush=True)

    async def main() -> None:
        await asyncio.gather(*servers)

    asyncio.run(main())
