"""`pix3 agent-setup`: the agents' chrome-devtools-mcp configs pointing at the proxy."""
