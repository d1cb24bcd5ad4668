// numbast stand-in for <stdio.h> under NVRTC: device code has printf (built into NVRTC) and
// nothing else of stdio; EOF is defined for code that compares against it.
#ifndef __NUMBAST_STANDIN_STDIO_H
#define __NUMBAST_STANDIN_STDIO_H

#include <stddef.h>

#ifndef EOF
#define EOF (-1)
#endif

#endif
