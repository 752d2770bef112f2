"""`just bench`: every area's measurements side by side, as ratios to the physical limit."""
