// Included by vec.cuh: editing it must invalidate the cached bindings.
#pragma once
#define SCALE 2.0f
