"""Load stage for manifests that live inside other files: Markdown snippets, Argo resource
templates, Kustomize patches, cluster dumps, shell heredocs and string values."""
