"""pix3net.daemon."""
