"""CONVERT stage, rules: one module per rule family, applied by the engine in a fixed order."""
