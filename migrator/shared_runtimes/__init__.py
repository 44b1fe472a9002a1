"""BATCH (shared runtimes): ``convert --shared-runtimes DIR`` — the few ClusterTrainingRuntimes a
platform installs instead of one companion TrainingRuntime per job.

``share`` splits one job (pure), ``rewrite`` edits a converted file where it was converted,
``store`` reads and writes the folder in the main process.
"""

CARRIED = "sharedRuntime"  # the key of DocumentResult.output a shared runtime travels under
