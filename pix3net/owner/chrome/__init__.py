"""pix3net.owner.chrome."""
