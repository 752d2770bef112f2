"""`pix3 smoke`: the game run headless in real Chrome (docs/smoke.md). The entry is ``command.main``."""
