// What check_targets.sh must refuse: CUDA codegen using the CPU's passes.
#include "codegen/CPU/Passes.h"
