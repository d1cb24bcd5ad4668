// constexpr variables of several types, and a non-constexpr one that must not appear.
#pragma once

constexpr int kAnswer = 42;
constexpr float kHalf = 0.5f;
constexpr float kPi = 3.14;  // a double literal, stored as the float nearest 3.14
constexpr float kThird = 1.0f / 3.0f;
constexpr double kScale = 1.0 / 4.0;
constexpr bool kEnabled = true;
constexpr unsigned long long kBig = 1ULL << 40;
constexpr int kNegative = -7;
constexpr int kComputed = kAnswer * 2 + 1;
static const int kNotConstexpr = 3;

namespace limits {
constexpr short kMax = 32767;
}
