#pragma once
#define EXT_SCALE 2.0
