"""C++ function and class templates, bound dynamically: ``function_templates`` and
``class_templates`` turn declarations into template rows and apply them through the one runtime
(``numbast.runtime.templates``), which instantiates on first use, asking NVRTC (never clang)
what substitution cannot tell; ``context`` holds the options (arch, include dirs, defines) of a
shim writer's instances.
"""
