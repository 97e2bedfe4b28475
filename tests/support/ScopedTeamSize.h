// This thread's OpenMP team size for a scope: tests that need more threads
// than rows (split-row versions) on a machine of 2 cores ask for them.
#pragma once

#include "runtime/Threading.h"

namespace anyshape::test {

using ScopedTeamSize = runtime::ScopedThreads;

} // namespace anyshape::test
