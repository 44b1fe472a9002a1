"""LOAD stage: read and decode inputs, split YAML streams, parse, detect what a document is."""
