"""Classes and what teachers see of them: class codes, per-class counters, alternatives for token match."""
