"""NVIDIA Numbast's ``numbast.static.class_template`` reset function, so code (NVIDIA's test
conftests among it) that resets the generator between runs works unchanged."""


def clear_class_template_cache() -> None:
    """Reset the class template cache NVIDIA's renderer keeps between runs. Each run here plans
    with state of its own, so there is nothing to reset."""


__all__ = ["clear_class_template_cache"]
