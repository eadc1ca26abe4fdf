"""Platform-neutral quiz core: domain types, grading, wording and the use cases adapters call."""
