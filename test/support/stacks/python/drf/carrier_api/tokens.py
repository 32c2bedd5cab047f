"""Issued access tokens and their expiry (in memory: one process serves every deployment)."""
import secrets
import threading
import time
from typing import Dict

_tokens: Dict[str, float] = {}
_lock = threading.Lock()


def issue(ttl_seconds: float) -> str:
    token = secrets.token_urlsafe(32)
    with _lock:
        _tokens[token] = time.monotonic() + ttl_seconds
    return token


def is_valid(token: str) -> bool:
    with _lock:
        expires = _tokens.get(token)
    return expires is not None and expires > time.monotonic()
