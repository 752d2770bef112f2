"""The dev server: the `/__pix3/*` contract in front of a supervised Vite (spec/devserver.md)."""
