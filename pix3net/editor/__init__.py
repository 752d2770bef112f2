"""`pix3 editor`: dev server, Chrome owner and editor tab, locally and in Remote SSH mode."""
