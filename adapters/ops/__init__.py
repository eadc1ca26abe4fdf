"""Operating the bot: the health, readiness and metrics HTTP server, and Prometheus metrics."""
