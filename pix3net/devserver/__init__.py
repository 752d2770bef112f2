"""The dev server: the `/__pix3/*` contract in front of a supervised Vite (docs/devserver.md)."""
