// Enums: plain and scoped, with explicit underlying types, used as arguments and results.
#pragma once

enum Color { RED, GREEN = 5, BLUE };

enum class Mode : unsigned char { Off = 0, Slow = 10, Fast = 20 };

__device__ inline int color_weight(Color c) { return c == GREEN ? 100 : (int)c; }
__device__ inline Mode next_mode(Mode m) { return m == Mode::Off ? Mode::Slow : Mode::Fast; }
