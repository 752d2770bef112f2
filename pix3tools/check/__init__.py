"""`pix3 check`: flush, validate, type-check, versions, kit, editor chain (spec/tools.md §1–§2)."""
