// A vendored copy of a CUDA toolkit header (a stand-in for cuda.h with its include guard):
// clang's CUDA wrapper includes the toolkit's own cuda.h first, so only cuda_header_mode
// reads the declarations from this copy.
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__

#define CUDA_VERSION 13000

typedef enum vendoredFlags_enum { VENDORED_A = 1, VENDORED_B = 2 } vendoredFlags;

typedef struct vendoredHandle_st {
    char reserved[64];
} vendoredHandle;

int vendoredInit(unsigned int flags);

#endif
