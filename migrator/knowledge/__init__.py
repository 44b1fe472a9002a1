"""KNOWLEDGE stage: the catalog of mappings/, its typed specs, the Trainer API models, runtimes."""
