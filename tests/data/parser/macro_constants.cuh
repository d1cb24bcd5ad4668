// Object-like macros, as math_constants.h writes its constants: those that expand to a literal
// are constants with the literal's C++ type; expressions, calls, function-like macros, reserved
// names and definitions in inactive #if branches are not.
#pragma once

#define MC_PI_F 3.141592654f         // float: the nearest float to the digits
#define MC_TIE_F 1.0000000596046447755f  // just above a tie: a double in between rounds wrong
#define MC_MASK 0x80000000           // unsigned int, by C++'s rules for a hex literal
#define MC_BIG 2147483648            // long: too big for int
#define MC_NEG (-1)                  // int
#define MC_HALF_LO (-4.8336466567264567e-17)  // double
#define MC_FLAG true
#define MC_LETTER 'A'
#define MC_NAME "numbast"
#define MC_ALIAS MC_PI_F             // another macro constant's value
#ifdef __CUDA_ARCH__
#define MC_WHERE 1
#else
#define MC_WHERE 2
#endif
#define MC_REDEFINED 1
#undef MC_REDEFINED
#define MC_REDEFINED 2
#define MC_EXPR (1 << 3)             // an expression
#define MC_CALL __int_as_float(0x7f800000U)  // a call
#define MC_FN(x) (x)                 // function-like
#define _MC_RESERVED 7               // a reserved name: the implementation's
