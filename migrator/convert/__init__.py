"""CONVERT stage: one legacy document to a Trainer v2 TrainJob (+ runtime), with findings."""
