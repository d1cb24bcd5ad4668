// numbast stand-in for <assert.h> under NVRTC. As in C, this header has no include guard: each
// inclusion defines assert anew for the current NDEBUG. A failed assert calls CUDA's
// __assertfail, as the assert NVRTC predefines does.
#undef assert
#ifdef NDEBUG
#define assert(condition) (static_cast<void>(0))
#else
#define assert(condition)                                                                \
  ((condition) ? static_cast<void>(0)                                                    \
               : __assertfail(#condition, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif

