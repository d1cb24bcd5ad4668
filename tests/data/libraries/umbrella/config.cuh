// Macros only, and another include: an umbrella too (looked through).
#pragma once
#define UMBRELLA_VERSION 2
#include "parts/offset.cuh"
