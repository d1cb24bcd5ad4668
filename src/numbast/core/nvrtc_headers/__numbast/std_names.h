// numbast stand-in headers for NVRTC (internal): the C++ standard library's names in std::.
//
// NVRTC has no C++ standard library. libcu++ (CCCL's cuda::std) is its device-side counterpart,
// and every stand-in of a C++ header includes the libcu++ header of the same name, then this
// one: a using-directive makes each cuda::std name reachable as std::name. Names NVRTC declares
// in std itself (std::move, std::forward, std::initializer_list) are found first, so nothing
// becomes ambiguous. A directive cannot be specialized through: a header that specializes
// std::numeric_limits or std::hash for its own types must do so in cuda::std under NVRTC.
#ifndef __NUMBAST_STANDIN_STD_NAMES_H
#define __NUMBAST_STANDIN_STD_NAMES_H

#define __NUMBAST_NVRTC_STANDINS 1

namespace cuda {
namespace std {
}
}  // namespace cuda

namespace std {
using namespace ::cuda::std;
}  // namespace std

#endif
