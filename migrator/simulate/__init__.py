"""SIMULATE: what each controller creates for a job and how it then behaves, from the objects."""
