// Library types that cannot be assigned, and static members reached through objects, as
// cooperative_groups writes them: thread_group declares a private copy assignment it never
// defines, thread_block has a const member (its copy assignment is deleted) and static sync(),
// thread_rank() and size(), called as block.sync().
#pragma once

class Team {
 public:
  __device__ unsigned int size() const { return blockDim.x; }
  __device__ unsigned int rank() const { return threadIdx.x; }

 protected:
  friend __device__ Team whole_team();
  __device__ Team() {}
  __device__ Team &operator=(const Team &);  // declared, never defined
};

class Block {
  friend __device__ Block this_block();
  __device__ Block() : tag(7) {}
  const int tag;  // the copy assignment is deleted

 public:
  __device__ static void sync() { __syncthreads(); }
  __device__ static unsigned int thread_rank() { return threadIdx.x; }
  __device__ static unsigned int size() { return blockDim.x; }
  __device__ int id() const { return tag; }
};

__device__ inline Team whole_team() { return Team(); }
__device__ inline Block this_block() { return Block(); }
