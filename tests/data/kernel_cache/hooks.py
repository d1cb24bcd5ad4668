"""Module Callbacks for static_kernel.py's bindings: they count their calls."""

setups = 0
teardowns = 0


def setup(module):
    global setups
    setups += 1


def teardown(module):
    global teardowns
    teardowns += 1
