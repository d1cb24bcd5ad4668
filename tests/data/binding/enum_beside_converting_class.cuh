// An unscoped enum beside a class that any integer converts to, with an operator== of its own:
// Level == Level is C++'s built-in comparison (a promotion), never Meter's operator== through
// Meter(int) (a user-defined conversion).
#pragma once

enum Level { Low = 1, High = 7 };

struct Meter {
    float value;
    __device__ Meter(int v) : value(static_cast<float>(v)) {}
};

__device__ inline bool operator==(Meter a, Meter b) { return a.value == b.value; }

__device__ inline Level promote(Level level) { return level == Low ? High : Low; }
