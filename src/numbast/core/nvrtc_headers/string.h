// numbast stand-in for <string.h> under NVRTC. memcpy and memset are CUDA's own (built into
// NVRTC); the few other C string functions that need no locale are written here (with the
// const and non-const overloads of C++'s <cstring>), device-side,
// in the global namespace, since libcu++ declares them only in cuda::std (and not all of them
// in every version).
#ifndef __NUMBAST_STANDIN_STRING_H
#define __NUMBAST_STANDIN_STRING_H

#include <stddef.h>

__host__ __device__ inline int memcmp(const void* lhs, const void* rhs, size_t count) {
  const unsigned char* left = static_cast<const unsigned char*>(lhs);
  const unsigned char* right = static_cast<const unsigned char*>(rhs);
  for (size_t i = 0; i < count; ++i) {
    if (left[i] != right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return 0;
}

__host__ __device__ inline void* memmove(void* dest, const void* src, size_t count) {
  unsigned char* to = static_cast<unsigned char*>(dest);
  const unsigned char* from = static_cast<const unsigned char*>(src);
  if (to < from) {
    for (size_t i = 0; i < count; ++i) to[i] = from[i];
  } else {
    for (size_t i = count; i > 0; --i) to[i - 1] = from[i - 1];
  }
  return dest;
}

__host__ __device__ inline const void* memchr(const void* ptr, int ch, size_t count) {
  const unsigned char* bytes = static_cast<const unsigned char*>(ptr);
  for (size_t i = 0; i < count; ++i) {
    if (bytes[i] == static_cast<unsigned char>(ch)) return bytes + i;
  }
  return nullptr;
}

__host__ __device__ inline void* memchr(void* ptr, int ch, size_t count) {
  return const_cast<void*>(memchr(static_cast<const void*>(ptr), ch, count));
}

__host__ __device__ inline size_t strlen(const char* text) {
  size_t length = 0;
  while (text[length] != '\0') ++length;
  return length;
}

__host__ __device__ inline int strncmp(const char* lhs, const char* rhs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    unsigned char left = static_cast<unsigned char>(lhs[i]);
    unsigned char right = static_cast<unsigned char>(rhs[i]);
    if (left != right) return left < right ? -1 : 1;
    if (left == '\0') return 0;
  }
  return 0;
}

__host__ __device__ inline int strcmp(const char* lhs, const char* rhs) {
  return strncmp(lhs, rhs, static_cast<size_t>(-1));
}

__host__ __device__ inline char* strcpy(char* dest, const char* src) {
  size_t i = 0;
  for (; src[i] != '\0'; ++i) dest[i] = src[i];
  dest[i] = '\0';
  return dest;
}

__host__ __device__ inline char* strncpy(char* dest, const char* src, size_t count) {
  size_t i = 0;
  for (; i < count && src[i] != '\0'; ++i) dest[i] = src[i];
  for (; i < count; ++i) dest[i] = '\0';
  return dest;
}

__host__ __device__ inline const char* strchr(const char* text, int ch) {
  for (;; ++text) {
    if (*text == static_cast<char>(ch)) return text;
    if (*text == '\0') return nullptr;
  }
}

__host__ __device__ inline char* strchr(char* text, int ch) {
  return const_cast<char*>(strchr(static_cast<const char*>(text), ch));
}

#endif
