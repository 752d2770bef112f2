"""pix3net.wire."""
