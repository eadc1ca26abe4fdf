"""Question banks: the YAML bank files, their loader and checker, and the importer for pasted papers."""
