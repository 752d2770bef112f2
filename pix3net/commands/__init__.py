"""pix3net.commands."""
