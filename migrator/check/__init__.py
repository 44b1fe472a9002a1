"""CHECK stage: validate Trainer objects against the target API and CRDs (and `validate`)."""
