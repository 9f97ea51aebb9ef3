"""The web layer: what every request goes through before a route."""
