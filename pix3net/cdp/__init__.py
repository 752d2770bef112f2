"""The CDP token proxy: token, proof, auth checks, the pure session router and its transport."""
