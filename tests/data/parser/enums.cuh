// Enumerations: plain and scoped, with and without an explicit underlying type.
#pragma once

enum Color { RED, GREEN = 5, BLUE };

enum class Mode : unsigned char { Off = 0, On = 1, Auto = 255 };

enum Sign : short { Negative = -1, Zero = 0, Positive = 1 };

namespace gfx {
enum class Filter : long long { Nearest, Linear = 1LL << 40 };
}

typedef enum { ALPHA = 1, BETA = 2 } greek_t;
