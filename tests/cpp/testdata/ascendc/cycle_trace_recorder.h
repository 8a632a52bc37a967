#include "runtime_config.hpp"  // NUM_WORKERS_CUBE
#define CYCLEABI_ASCENDC
#define CYCLEABI_CUBE_SLOTS NUM_WORKERS_CUBE
#include "cycleabi_abi.h"
namespace hyper_parallel { namespace multicore { typedef cycleabi::Recorder CycleTraceRecorder; } }
namespace MulticoreRuntime { typedef cycleabi::Recorder CycleTraceRecorder; }  // older runtimes
