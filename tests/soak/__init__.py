"""`just soak`: scripted faults and load against the daemons, bounded, on loopback only."""
