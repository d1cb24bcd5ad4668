// An enum with operators (operator| on an enum class), and an unscoped enum whose enumerators
// C++ puts in the enclosing scope.
#pragma once

enum class Flags : unsigned int { None = 0, Read = 1, Write = 2 };

__device__ inline Flags operator|(Flags a, Flags b) {
  return static_cast<Flags>(static_cast<unsigned int>(a) | static_cast<unsigned int>(b));
}

__device__ inline unsigned int flag_bits(Flags f) { return static_cast<unsigned int>(f); }

enum Edge { CLAMPED = 3, WRAPPED = 7 };

__device__ inline int edge_code(Edge e) { return static_cast<int>(e) * 10; }
