// Found only through additional_includes=[".../include_dir"].
#pragma once

struct ExtraType {
    int value;
};
