"""NVIDIA Numbast's ``numbast.static.function_template`` reset function, so code (NVIDIA's test
conftests among it) that resets the generator between runs works unchanged."""


def clear_function_template_registry() -> None:
    """Reset the registry of function templates NVIDIA's renderer keeps between runs. Each run
    here plans with state of its own, so there is nothing to reset."""


__all__ = ["clear_function_template_registry"]
