// Structs and classes: access specifiers, layout (offsets, size, alignment), bases, nested and
// anonymous members, bit-fields.
#pragma once

struct Point {
    float x;
    float y;

  protected:
    int tag;

  private:
    double weight;
};

class Counter {
    int hidden;  // a class starts private

  public:
    unsigned long long count;
    struct Inner {
        short a;
        char b;
    } inner;
};

struct Base {
    int id;
};

struct Derived : public Base {
    char flag;
    union {
        float as_float;
        int as_int;
    };
    unsigned bits : 3;
};

struct alignas(16) Aligned {
    char c;
};
