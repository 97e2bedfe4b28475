// A loader file that reaches into the compiler: check_layers.sh must
// refuse it (tests/layering/CMakeLists.txt).
#include "codegen/Common/Passes.h"
