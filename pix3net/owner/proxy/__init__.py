"""pix3net.owner.proxy."""
