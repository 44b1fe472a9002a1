"""BATCH stage: select files, read, convert or validate them (in parallel), write, run."""
