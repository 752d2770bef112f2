"""pix3net.owner."""
