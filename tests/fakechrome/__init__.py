"""A fake Chrome for tests: the sans-IO model, an in-memory channel over it,
and ``python -m tests.fakechrome``, which speaks the real pipe protocol on fds 3/4."""

from tests.fakechrome.model import PRODUCT, FakeChrome

__all__ = ["PRODUCT", "FakeChrome"]
