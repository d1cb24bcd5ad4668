"""Data files of the numbast tools: the static-binding config schema, read through
importlib.resources so that it is found inside an installed wheel as well as in a checkout."""
