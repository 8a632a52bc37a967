// A stand-in for the runtime's runtime_config.hpp: only the cube worker
// count, which the replacement recorder passes as CYCLEABI_CUBE_SLOTS. The
// test sets STUB_NUM_WORKERS_CUBE to see that it is honoured.
#ifndef STUB_NUM_WORKERS_CUBE
#define STUB_NUM_WORKERS_CUBE 24
#endif
constexpr uint32_t NUM_WORKERS_CUBE = STUB_NUM_WORKERS_CUBE;
