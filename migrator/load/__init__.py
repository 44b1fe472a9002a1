"""LOAD stage: read and decode inputs, split YAML streams, parse, detect what a document is."""

import warnings

# The YAML library's warnings quote the input as it is (a reused anchor's: control characters,
# a right-to-left override): never printed raw, wherever a stage parses (yamlio.quiet does it
# for each parse even where this filter was reset)
warnings.filterwarnings("ignore", module=r"ruamel\.yaml")
