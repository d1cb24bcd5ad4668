// An umbrella header, as libraries write them (<cuda/std/complex>): only includes.
#pragma once
#include "config.cuh"
#include "parts/scale.cuh"
